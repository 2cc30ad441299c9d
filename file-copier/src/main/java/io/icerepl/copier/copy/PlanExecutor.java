package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.path.ReplicaDomain;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * Puts a streamed copy plan's files in place on the given executor, in publish order: a manifest is
 * rewritten only when every file it names is in place, a manifest list only when every manifest it
 * names is, so no replica file ever names one that is not there yet. Steps of many manifests run at
 * once, which keeps the executor busy across manifests and tables, but at most {@link
 * #FILES_IN_FLIGHT} files are being put at a time and at most as many steps wait for their writes:
 * planning waits for copying, and memory follows that bound, not the table's files. Lengths
 * recorded in manifests and manifest lists are the replica files' own.
 *
 * <p>Each execution is a {@link CopyRun}, which schedules the steps alone: what each write waits
 * for is its {@link PublishOrder}, one file's copy is {@link FileCopier}'s, one manifest's or
 * manifest list's rewrite {@link ManifestWriter}'s within the {@link RenderBudget}, the counts
 * {@link RunProgress}'s, and what a failed commit removes {@link WrittenFiles}'.
 */
public final class PlanExecutor {
  /**
   * Places among the steps in flight: a file being put takes one, a manifest's step one until its
   * manifest is written, a manifest list's or statistics files' step one per file. Enough to keep
   * any executor busy, small in memory.
   */
  static final int FILES_IN_FLIGHT = 1024;

  /**
   * Files copied whose manifest waits for a check of their source lengths ({@link
   * CopySink#accept(ManifestCopy, CompletableFuture)}): copying runs this far ahead of a slow
   * source listing, at a few hundred bytes a file.
   */
  static final int FILES_AWAITING_CHECK = 32_768;

  /**
   * Bytes of rewritten manifests and manifest lists held in memory, rendered while the files they
   * name are still being put in place, until they may be written. A step beyond it renders after
   * its files, as a large one would anyway.
   */
  static final int RENDERED_BYTES = 8 << 20;

  private final ObjectStore source;
  private final ObjectStore target;
  private final ExecutorService executor;
  private final CopyProgress.Listener listener;

  public PlanExecutor(ObjectStore source, ObjectStore target, ExecutorService executor) {
    this(source, target, executor, CopyProgress.Listener.NONE);
  }

  public PlanExecutor(
      ObjectStore source,
      ObjectStore target,
      ExecutorService executor,
      CopyProgress.Listener listener) {
    this.source = source;
    this.target = target;
    this.executor = executor;
    this.listener = listener;
  }

  /** Counts of what one execution did. */
  public record Outcome(
      long filesCopied, long bytesCopied, long filesRewritten, long bytesWritten) {}

  /**
   * How the files of a failed commit are removed, by the replica's one writer: copies are
   * deterministic (a source file always lands on the same replica path), so a run that took the
   * table over while this one was paused may have copied and published the very same paths. The
   * cleanup deletes them only while the replica's state is still the one this run read or wrote,
   * and else deletes nothing and fails saying so.
   */
  @FunctionalInterface
  public interface Cleanup {
    /**
     * @param why what is removed, for the message
     */
    void deleteAll(List<String> paths, String why) throws IOException;
  }

  /**
   * Puts every file of the plan in place while {@code planning} streams it, on the calling thread,
   * into the sink given to it. When planning or a file fails, planning stops, the steps in flight
   * finish, and the files this call wrote are removed again through {@code cleanup}: no published
   * metadata names them yet, and the replica is left as it was. When the cleanup refuses (the table
   * was taken over meanwhile), its refusal is thrown, the failure suppressed in it.
   *
   * @param placement the mapping the plan was made by, confined to the replica's domain: each file
   *     is checked against it before it is put in place, so no plan places a file outside the
   *     replica
   */
  public Outcome execute(
      String table,
      Consumer<CopySink> planning,
      ReplicaDomain.Placement placement,
      Cleanup cleanup) {
    CopyRun run = new CopyRun(table, placement, source, target, executor, listener);
    try {
      planning.accept(run);
      run.progress().planComplete();
      run.settle();
      run.throwIfFailed();
    } catch (RuntimeException e) {
      run.settle();
      try {
        cleanup.deleteAll(run.written(e), "remove the files of a failed commit");
      } catch (IOException notDeleted) {
        e.addSuppressed(notDeleted); // the commit's failure is what the run reports
      } catch (RuntimeException refused) {
        refused.addSuppressed(e);
        throw refused;
      }
      throw e;
    }
    return run.progress().outcome();
  }
}
