package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.CopyStep;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import io.icerepl.merge.copyplan.StatisticsCopy;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.puffin.DeletionVectorRewriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a streamed copy plan's files in place on the given executor, in publish order: a manifest is
 * rewritten only when every file it names is in place, a manifest list only when every manifest it
 * names is, so no replica file ever names one that is not there yet. Steps of many manifests run at
 * once, which keeps the executor busy across manifests and tables, but at most {@link
 * #FILES_IN_FLIGHT} files are being put at a time and at most as many steps wait for their writes:
 * planning waits for copying, and memory follows that bound, not the table's files. Lengths
 * recorded in manifests and manifest lists are the replica files' own.
 */
public final class PlanExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(PlanExecutor.class);

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

  /** Bytes reserved per manifest a manifest list names, for its rendering ahead of time. */
  private static final int LIST_BYTES_PER_MANIFEST = 1024;

  /** Already complete: what a step that waits for nothing runs after. */
  private static final CompletableFuture<Void> NOTHING = CompletableFuture.completedFuture(null);

  /** Long copies log their progress this often. */
  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

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
    Run run = new Run(table, placement);
    try {
      planning.accept(run);
      run.planComplete = true;
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
    return new Outcome(
        run.filesCopied.get(),
        run.bytesCopied.get(),
        run.filesRewritten.get(),
        run.bytesWritten.get());
  }

  /**
   * The files one manifest's step wrote: the positions of their entries among the manifest's live
   * entries, found again from the source manifest should they have to be removed.
   */
  private record WrittenFiles(String sourceManifest, BitSet entries) {}

  private final class Run implements CopySink {
    private final String table;
    private final ReplicaDomain.Placement placement;
    private final PathMapping mapping;
    private final Semaphore capacity = new Semaphore(FILES_IN_FLIGHT);
    private final Semaphore awaitingCheck = new Semaphore(FILES_AWAITING_CHECK);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Map<String, CompletableFuture<Void>> filesInFlight = new ConcurrentHashMap<>();

    /** Replica manifests this run writes, to their replica length once written. */
    private final Map<String, CompletableFuture<Long>> manifests = new ConcurrentHashMap<>();

    /**
     * Replica manifests this run writes, to their replica length once known: rendered, for a
     * manifest rendered ahead of its write, else written.
     */
    private final Map<String, CompletableFuture<Long>> manifestLengths = new ConcurrentHashMap<>();

    private final Semaphore renderedBytes = new Semaphore(RENDERED_BYTES);

    /** Manifests, manifest lists and statistics files this run wrote. */
    private final Set<String> written = ConcurrentHashMap.newKeySet();

    private final Queue<WrittenFiles> writtenFiles = new ConcurrentLinkedQueue<>();
    private final long startNanos = System.nanoTime();
    private final AtomicLong filesTotal = new AtomicLong();
    private final AtomicLong bytesTotal = new AtomicLong();
    private volatile boolean planComplete;
    private final AtomicLong filesDone = new AtomicLong();
    private final AtomicLong lastLogNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong filesCopied = new AtomicLong();
    private final AtomicLong bytesCopied = new AtomicLong();
    private final AtomicLong filesRewritten = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();

    Run(String table, ReplicaDomain.Placement placement) {
      this.table = table;
      this.placement = placement;
      this.mapping = placement.mapping();
    }

    /**
     * Every file the step puts in place lies in the replica's domain, and every source file it
     * reads really lies under the source prefix that maps it (no symbolic link leads out of it), or
     * none is put.
     */
    private void checkPlaced(CopyStep step) {
      List<FileCopy> placed;
      if (step instanceof ManifestCopy manifest) {
        placed = new ArrayList<>(manifest.files());
        placed.add(manifest.manifest());
      } else if (step instanceof ManifestListCopy list) {
        placed = List.of(list.manifestList());
      } else {
        placed = ((StatisticsCopy) step).files();
      }
      for (FileCopy file : placed) {
        placement.check(table, CopyPlanner.noun(file.kind()), file.source(), file.target());
        try {
          String root =
              mapping
                  .sourcePrefixOf(file.source())
                  .orElseThrow(() -> new IllegalStateException("Unmapped " + file.source()));
          source.checkResolvesUnder(file.source(), root);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read file " + file.source() + " of " + table, e);
        }
      }
    }

    @Override
    public boolean inFlight(String targetPath) {
      return filesInFlight.containsKey(targetPath);
    }

    @Override
    public void accept(CopyStep step) {
      checkPlaced(step);
      if (step instanceof ManifestCopy manifest) {
        acceptManifest(manifest, null);
        return;
      }
      throwIfFailed();
      int weight = Math.min(step.size(), FILES_IN_FLIGHT);
      if (take(capacity, weight) != null) {
        throwIfFailed();
      }
      filesTotal.addAndGet(step.size());
      CompletableFuture<?> done =
          step instanceof ManifestListCopy list ? submit(list) : submit((StatisticsCopy) step);
      done.whenComplete(
          (result, e) -> {
            if (e != null) {
              failure.compareAndSet(null, unwrap(e));
            }
            capacity.release(weight);
          });
      throwIfFailed();
    }

    /**
     * The step's files count against the files awaiting a check until its manifest is written, so
     * copying runs ahead of a slow check by a bounded number of files.
     */
    @Override
    public void accept(ManifestCopy step, CompletableFuture<Void> check) {
      checkPlaced(step);
      acceptManifest(step, check);
    }

    /**
     * A manifest's step holds one place among the steps in flight until its manifest is written,
     * and each of its files one more while that file is put: so the next manifest's files start as
     * soon as places free up, instead of after the whole of a large manifest (which needed every
     * place at once while a manifest list waiting on a slow check held one, and so emptied the
     * executor).
     */
    private void acceptManifest(ManifestCopy step, CompletableFuture<Void> check) {
      throwIfFailed();
      int awaiting = check == null ? 0 : Math.min(step.size(), FILES_AWAITING_CHECK);
      if (take(awaitingCheck, awaiting) != null) {
        throwIfFailed();
      }
      if (take(capacity, 1) != null) {
        awaitingCheck.release(awaiting);
        throwIfFailed();
      }
      Runnable release =
          () -> {
            capacity.release(1);
            awaitingCheck.release(awaiting);
          };
      filesTotal.addAndGet(step.size());
      submit(step, check)
          .whenComplete(
              (result, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, unwrap(e));
                }
                release.run();
              });
      throwIfFailed();
    }

    /**
     * Waits for {@code permits} of {@code semaphore}; null once taken, else the failure of the run
     * (an earlier step's, or the interrupt that ended the wait, which fails the run) and none are
     * held.
     */
    private Throwable take(Semaphore semaphore, int permits) {
      try {
        semaphore.acquire(permits);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure.compareAndSet(
            null,
            new UncheckedIOException(
                new InterruptedIOException(
                    "Cannot copy the files of table " + table + ": interrupted")));
        return failure.get();
      }
      Throwable failed = failure.get();
      if (failed != null) {
        semaphore.release(permits);
      }
      return failed;
    }

    /** Waits until no step is in flight. */
    void settle() {
      awaitingCheck.acquireUninterruptibly(FILES_AWAITING_CHECK);
      awaitingCheck.release(FILES_AWAITING_CHECK);
      capacity.acquireUninterruptibly(FILES_IN_FLIGHT);
      capacity.release(FILES_IN_FLIGHT);
    }

    void throwIfFailed() {
      Throwable failed = failure.get();
      if (failed instanceof RuntimeException r) {
        throw r;
      }
      if (failed instanceof Error error) {
        throw error;
      }
      if (failed != null) {
        throw new CompletionException(failed);
      }
    }

    /**
     * Puts the step's files, each once a place among the files in flight is free, and writes its
     * manifest after them. Once a step has failed, the files not yet started are not copied.
     *
     * @param check null, or what the manifest waits for besides its files
     */
    private CompletableFuture<Long> submit(ManifestCopy step, CompletableFuture<Void> check) {
      List<FileCopy> files = step.files();
      int[] entries = step.copiedEntries().stream().toArray();
      BitSet done = new BitSet();
      Map<String, RewrittenFile> rewritten = new ConcurrentHashMap<>();
      List<CompletableFuture<Void>> before = new ArrayList<>(files.size());
      for (int k = 0; k < files.size(); k++) {
        FileCopy file = files.get(k);
        int entry = entries[k];
        Throwable failed = take(capacity, 1);
        if (failed != null) {
          before.add(CompletableFuture.failedFuture(failed));
          break;
        }
        CompletableFuture<Void> put =
            put(
                file,
                () -> {
                  putFile(file, step, rewritten);
                  synchronized (done) {
                    done.set(entry);
                  }
                });
        filesInFlight.put(file.target(), put);
        put.whenComplete(
            (result, e) -> {
              filesInFlight.remove(file.target(), put);
              capacity.release();
            });
        before.add(put);
      }
      for (String awaited : step.awaited()) {
        CompletableFuture<Void> put = filesInFlight.get(awaited);
        if (put != null) {
          before.add(put); // else it is in place already
        }
      }
      FileCopy manifest = step.manifest();
      CompletableFuture<Void> put =
          CompletableFuture.allOf(before.toArray(CompletableFuture[]::new));
      // the files in place, and the check of their source lengths passed where there is one
      CompletableFuture<Void> ready = check == null ? put : CompletableFuture.allOf(put, check);
      int reserved = renderAheadBytes(step);
      Rewrite rewrite = manifestRewrite(manifest, step, rewritten);
      CompletableFuture<Long> length;
      if (reserved > 0) {
        // the rewrite reads nothing the copies write: it runs beside them, and only its write waits
        CompletableFuture<byte[]> rendered =
            onExecutor(NOTHING, manifest, () -> render(manifest, rewrite));
        manifestLengths.put(manifest.target(), rendered.thenApply(bytes -> (long) bytes.length));
        length =
            writeAfter(
                CompletableFuture.allOf(ready, rendered),
                manifest,
                () -> writeRendered(manifest, rendered.join()));
        length.whenComplete((result, e) -> renderedBytes.release(reserved));
      } else {
        length = writeAfter(ready, manifest, () -> rewrite(manifest, rewrite));
        manifestLengths.put(manifest.target(), length);
      }
      manifests.put(manifest.target(), length);
      return length.whenComplete(
          (result, e) -> {
            synchronized (done) {
              if (!done.isEmpty()) {
                writtenFiles.add(new WrittenFiles(manifest.source(), done));
              }
            }
          });
    }

    private CompletableFuture<Long> submit(ManifestListCopy step) {
      List<CompletableFuture<Long>> before = new ArrayList<>();
      List<CompletableFuture<Long>> lengths = new ArrayList<>();
      for (String manifest : step.manifests()) {
        CompletableFuture<Long> length = manifests.get(manifest);
        if (length != null) {
          before.add(length);
          lengths.add(manifestLengths.get(manifest));
        }
      }
      FileCopy list = step.manifestList();
      Rewrite rewrite = manifestListRewrite(list, step);
      CompletableFuture<Void> manifestsWritten =
          CompletableFuture.allOf(before.toArray(CompletableFuture[]::new));
      int reserved = renderAheadBytes(step);
      if (reserved > 0) {
        // rendered once its manifests' lengths are known, written once they are in place
        CompletableFuture<byte[]> rendered =
            onExecutor(
                CompletableFuture.allOf(lengths.toArray(CompletableFuture[]::new)),
                list,
                () -> render(list, rewrite));
        CompletableFuture<Long> done =
            writeAfter(
                CompletableFuture.allOf(manifestsWritten, rendered),
                list,
                () -> writeRendered(list, rendered.join()));
        done.whenComplete((result, e) -> renderedBytes.release(reserved));
        return done;
      }
      return writeAfter(manifestsWritten, list, () -> rewrite(list, rewrite));
    }

    private CompletableFuture<Void> submit(StatisticsCopy step) {
      List<CompletableFuture<Void>> puts = new ArrayList<>();
      for (FileCopy file : step.files()) {
        puts.add(
            put(
                file,
                () -> {
                  copy(file, true, "table metadata");
                  written.add(file.target());
                }));
      }
      return CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new));
    }

    private interface Put {
      void run() throws IOException;
    }

    private CompletableFuture<Void> put(FileCopy file, Put put) {
      if (!file.kind().rewritten()) {
        bytesTotal.addAndGet(Math.max(0, file.expectedSize()));
      }
      return CompletableFuture.runAsync(
          () -> {
            try {
              put.run();
              reportProgress();
            } catch (IOException e) {
              throw cannotPut(file, e);
            }
          },
          executor);
    }

    private UncheckedIOException cannotPut(FileCopy file, IOException e) {
      return new UncheckedIOException(
          "Cannot put "
              + CopyPlanner.noun(file.kind())
              + " "
              + file.target()
              + " of table "
              + table
              + " in place: "
              + e.getMessage(),
          e);
    }

    private void reportProgress() {
      CopyProgress progress =
          new CopyProgress(
              table,
              filesDone.incrementAndGet(),
              filesTotal.get(),
              bytesCopied.get(),
              bytesTotal.get(),
              Duration.ofNanos(System.nanoTime() - startNanos),
              planComplete);
      listener.onProgress(progress);
      long now = System.nanoTime();
      long last = lastLogNanos.get();
      if (now - last > LOG_INTERVAL_NANOS && lastLogNanos.compareAndSet(last, now)) {
        LOG.info(
            "{}: copied {}/{} files, {}/{}{}, {}/s, {}",
            table,
            progress.filesDone(),
            progress.filesTotal(),
            HumanUnits.bytes(progress.bytesDone()),
            HumanUnits.bytes(progress.bytesTotal()),
            progress.planComplete() ? "" : " planned so far",
            HumanUnits.bytes((long) progress.bytesPerSecond()),
            progress.planComplete()
                ? progress
                    .eta()
                    .map(d -> "about " + HumanUnits.time(d) + " left")
                    .orElse("time left unknown")
                : "still planning");
      }
    }

    /**
     * Every file this run wrote, to be removed after {@code failure}; a source manifest that cannot
     * be read again is recorded in it.
     */
    List<String> written(RuntimeException failure) {
      List<String> paths = new ArrayList<>();
      for (WrittenFiles files : writtenFiles) {
        List<ManifestEntry> live;
        try (InputStream in = source.open(files.sourceManifest())) {
          live = ManifestRewriter.readLiveFiles(in, files.sourceManifest());
        } catch (IOException | RuntimeException e) {
          failure.addSuppressed(e);
          continue;
        }
        files.entries().stream().forEach(i -> paths.add(mapping.map(live.get(i).filePath())));
      }
      paths.addAll(written);
      return paths;
    }

    private void putFile(FileCopy file, ManifestCopy step, Map<String, RewrittenFile> rewritten)
        throws IOException {
      switch (file.kind()) {
        case POSITION_DELETE, DELETION_VECTOR -> rewriteDelete(file, rewritten);
        default -> copy(file, step.sourceLengthsChecked(), "manifest " + step.manifest().source());
      }
    }

    /**
     * One copy, trusting the recorded length. Its length is checked against the recorded one where
     * the copy counted it, and where the planner did not find the source with that length (one
     * request after the copy, instead of one before): a copy inside the store copies the source
     * object as it is, so a source the planner checked needs nothing more.
     */
    private void copy(FileCopy file, boolean sourceChecked, String namedBy) throws IOException {
      OptionalLong counted;
      try {
        counted = target.copyFrom(source, file.source(), file.target(), file.expectedSize());
      } catch (NoSuchFileException e) {
        throw CopyPlanner.missing(table, CopyPlanner.noun(file.kind()), file.source(), namedBy);
      }
      long length;
      if (counted.isPresent()) {
        length = counted.getAsLong();
      } else if (sourceChecked && file.expectedSize() >= 0) {
        length = file.expectedSize();
      } else {
        length = target.length(file.target()).orElse(-1);
      }
      if (file.expectedSize() >= 0 && length != file.expectedSize()) {
        written.add(file.target()); // no step records it, so the cleanup would not find it else
        throw CopyPlanner.wrongLength(
            table, file.kind(), file.source(), length, file.expectedSize(), namedBy);
      }
      filesCopied.incrementAndGet();
      bytesCopied.addAndGet(Math.max(0, length));
      LOG.debug("{}: copied {} -> {} ({} bytes)", table, file.source(), file.target(), length);
    }

    private void rewriteDelete(FileCopy file, Map<String, RewrittenFile> rewritten)
        throws IOException {
      RewrittenFile[] result = new RewrittenFile[1];
      try (SeekableInput in = source.openSeekable(file.source())) {
        long length =
            target.write(
                file.target(),
                out ->
                    result[0] =
                        file.kind() == FileKind.DELETION_VECTOR
                            ? DeletionVectorRewriter.rewrite(in, out, file.source(), mapping::map)
                            : PositionDeleteRewriter.rewrite(
                                file.fileFormat(), in, out, file.source(), mapping::map));
        bytesWritten.addAndGet(length);
      }
      rewritten.put(file.source(), result[0]);
      filesRewritten.incrementAndGet();
      LOG.debug("{}: rewrote {} -> {}", table, file.source(), file.target());
    }

    /**
     * The replica length and offsets of a delete file a manifest names, null if copied as is: the
     * step's own rewrite, else read from the replica file another step or an earlier commit wrote.
     */
    private RewrittenFile rewrittenDeleteFile(
        String sourcePath, ManifestCopy step, Map<String, RewrittenFile> rewritten) {
      RewrittenFile done = rewritten.get(sourcePath);
      if (done != null) {
        return done;
      }
      FileCopy elsewhere = step.rewrittenElsewhere().get(sourcePath);
      if (elsewhere == null) {
        return null;
      }
      return rewritten.computeIfAbsent(
          sourcePath,
          path -> {
            try (SeekableInput in = target.openSeekable(elsewhere.target())) {
              return elsewhere.kind() == FileKind.DELETION_VECTOR
                  ? DeletionVectorRewriter.describe(in, elsewhere.target())
                  : PositionDeleteRewriter.describe(elsewhere.fileFormat(), in, elsewhere.target());
            } catch (IOException e) {
              throw new UncheckedIOException("Cannot read replica file " + elsewhere.target(), e);
            }
          });
    }

    /**
     * The bytes reserved to render the step's manifest ahead of its files, 0 to render it after
     * them: a manifest naming delete files that are rewritten needs their replica lengths, which
     * only their rewrite tells, and one of unknown length is not held in memory.
     */
    private int renderAheadBytes(ManifestCopy step) {
      long length = step.manifest().expectedSize();
      if (length < 0
          || !step.rewrittenElsewhere().isEmpty()
          || step.files().stream().anyMatch(f -> f.kind().rewritten())) {
        return 0;
      }
      return reserve(2 * length); // mapped paths may be longer than the source's
    }

    private int renderAheadBytes(ManifestListCopy step) {
      return reserve((long) LIST_BYTES_PER_MANIFEST * (step.manifests().size() + 1));
    }

    private int reserve(long bytes) {
      if (bytes > RENDERED_BYTES / 4) {
        return 0;
      }
      int reserved = (int) Math.max(1, bytes);
      return renderedBytes.tryAcquire(reserved) ? reserved : 0;
    }

    /** An I/O step of a rewritten file, run on the executor. */
    private interface IoCall<T> {
      T call() throws IOException;
    }

    /**
     * Runs {@code call} on the executor once {@code after} completes; an I/O error names the file.
     */
    private <T> CompletableFuture<T> onExecutor(
        CompletableFuture<?> after, FileCopy file, IoCall<T> call) {
      return after.thenApplyAsync(
          ignored -> {
            try {
              return call.call();
            } catch (IOException e) {
              throw cannotPut(file, e);
            }
          },
          executor);
    }

    /** Writes a rewritten file once {@code after} completes, and counts it as written. */
    private CompletableFuture<Long> writeAfter(
        CompletableFuture<?> after, FileCopy file, IoCall<Long> write) {
      return onExecutor(
          after,
          file,
          () -> {
            long length = write.call();
            written.add(file.target());
            reportProgress();
            return length;
          });
    }

    /** How a manifest or manifest list is rewritten from the source's bytes. */
    private interface Rewrite {
      void rewrite(InputStream in, OutputStream out) throws IOException;
    }

    private Rewrite manifestRewrite(
        FileCopy file, ManifestCopy step, Map<String, RewrittenFile> rewritten) {
      return (in, out) ->
          ManifestRewriter.rewrite(
              in,
              out,
              file.source(),
              mapping::map,
              path -> rewrittenDeleteFile(path, step, rewritten));
    }

    private Rewrite manifestListRewrite(FileCopy file, ManifestListCopy step) {
      return (in, out) ->
          ManifestListRewriter.rewrite(
              in,
              out,
              file.source(),
              mapping::map,
              manifest -> replicaManifestLength(manifest, step));
    }

    /** The rewritten file in memory, to be written once what it names is in place. */
    private byte[] render(FileCopy file, Rewrite rewrite) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (InputStream in = source.open(file.source())) {
        rewrite.rewrite(in, out);
      }
      return out.toByteArray();
    }

    private long writeRendered(FileCopy file, byte[] rendered) throws IOException {
      return recordRewrite(file, target.write(file.target(), out -> out.write(rendered)));
    }

    /** The rewritten file streamed to the replica. */
    private long rewrite(FileCopy file, Rewrite rewrite) throws IOException {
      try (InputStream in = source.open(file.source())) {
        return recordRewrite(file, target.write(file.target(), out -> rewrite.rewrite(in, out)));
      }
    }

    private long recordRewrite(FileCopy file, long length) {
      bytesWritten.addAndGet(length);
      filesRewritten.incrementAndGet();
      LOG.debug("{}: rewrote {} -> {}", table, file.source(), file.target());
      return length;
    }

    /** manifest_length must be the replica manifest's: object-store readers trust it. */
    private long replicaManifestLength(String sourceManifest, ManifestListCopy step) {
      String targetManifest = mapping.map(sourceManifest);
      CompletableFuture<Long> writtenHere = manifestLengths.get(targetManifest);
      if (writtenHere != null) {
        return writtenHere.join();
      }
      Long length = step.replicaManifestLengths().get(targetManifest);
      if (length != null) {
        return length;
      }
      try {
        return target
            .length(targetManifest)
            .orElseThrow(
                () -> new IOException("replica manifest " + targetManifest + " is missing"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
