package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.CopyStep;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import io.icerepl.merge.copyplan.StatisticsCopy;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.ReplicaDomain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * One execution of a streamed plan, the scheduling alone: which step's files start when, within the
 * places in flight and the files awaiting a check ({@link StepAdmission}), and what each write
 * waits for ({@link PublishOrder}). The I/O of one file is {@link FileCopier}'s or {@link
 * ManifestWriter}'s; the first failure stops the run. Every step is checked against the replica's
 * domain before any of its files is put.
 */
final class CopyRun implements CopySink {
  /** Already complete: what a step that waits for nothing runs after. */
  private static final CompletableFuture<Void> NOTHING = CompletableFuture.completedFuture(null);

  private final String table;
  private final ReplicaDomain.Placement placement;
  private final ObjectStore source;
  private final ExecutorService executor;
  private final StepAdmission admission;
  private final PublishOrder order = new PublishOrder();
  private final RenderBudget budget = new RenderBudget(PlanExecutor.RENDERED_BYTES);
  private final RunProgress progress;
  private final WrittenFiles written;
  private final FileCopier files;
  private final ManifestWriter manifests;

  CopyRun(
      String table,
      ReplicaDomain.Placement placement,
      ObjectStore source,
      ObjectStore target,
      ExecutorService executor,
      CopyProgress.Listener listener) {
    this.table = table;
    this.placement = placement;
    this.source = source;
    this.executor = executor;
    this.admission =
        new StepAdmission(table, PlanExecutor.FILES_IN_FLIGHT, PlanExecutor.FILES_AWAITING_CHECK);
    PathMapping mapping = placement.mapping();
    this.progress = new RunProgress(table, listener);
    this.written = new WrittenFiles(source, mapping);
    this.files = new FileCopier(table, source, target, mapping, progress, written);
    this.manifests = new ManifestWriter(table, source, target, mapping, order, progress, written);
  }

  RunProgress progress() {
    return progress;
  }

  /** Waits until no step is in flight. */
  void settle() {
    admission.settle();
  }

  /** Throws the first failure of a step, if any. */
  void throwIfFailed() {
    admission.throwIfFailed();
  }

  /** Every file this run wrote, to be removed after {@code failure}. */
  List<String> written(RuntimeException failure) {
    return written.all(failure);
  }

  /**
   * Every file the step puts in place lies in the replica's domain, and every source file it reads
   * really lies under the source prefix that maps it (no symbolic link leads out of it), or none is
   * put.
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
      placement.check(table, CopyErrors.noun(file.kind()), file.source(), file.target());
      try {
        String root =
            placement
                .mapping()
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
    return order.inFlight(targetPath);
  }

  @Override
  public void accept(CopyStep step) {
    checkPlaced(step);
    if (step instanceof ManifestCopy manifest) {
      acceptManifest(manifest, null);
      return;
    }
    admission.throwIfFailed();
    int weight = Math.min(step.size(), admission.places());
    if (admission.takePlaces(weight) != null) {
      admission.throwIfFailed();
    }
    progress.planned(step.size());
    CompletableFuture<?> done =
        step instanceof ManifestListCopy list ? submit(list) : submit((StatisticsCopy) step);
    done.whenComplete(
        (result, e) -> {
          if (e != null) {
            admission.fail(e);
          }
          admission.releasePlaces(weight);
        });
    admission.throwIfFailed();
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
   * A manifest's step holds one place among the steps in flight until its manifest is written, and
   * each of its files one more while that file is put: so the next manifest's files start as soon
   * as places free up, instead of after the whole of a large manifest (which needed every place at
   * once while a manifest list waiting on a slow check held one, and so emptied the executor).
   */
  private void acceptManifest(ManifestCopy step, CompletableFuture<Void> check) {
    admission.throwIfFailed();
    int awaiting = check == null ? 0 : Math.min(step.size(), admission.awaitingCheck());
    if (admission.takeAwaitingCheck(awaiting) != null) {
      admission.throwIfFailed();
    }
    if (admission.takePlaces(1) != null) {
      admission.releaseAwaitingCheck(awaiting);
      admission.throwIfFailed();
    }
    Runnable release =
        () -> {
          admission.releasePlaces(1);
          admission.releaseAwaitingCheck(awaiting);
        };
    progress.planned(step.size());
    submit(step, check)
        .whenComplete(
            (result, e) -> {
              if (e != null) {
                admission.fail(e);
              }
              release.run();
            });
    admission.throwIfFailed();
  }

  /**
   * Puts the step's files, each once a place among the files in flight is free, and writes its
   * manifest after them. Once a step has failed, the files not yet started are not copied.
   *
   * @param check null, or what the manifest waits for besides its files
   */
  private CompletableFuture<Long> submit(ManifestCopy step, CompletableFuture<Void> check) {
    List<FileCopy> stepFiles = step.files();
    int[] entries = step.copiedEntries().stream().toArray();
    BitSet done = new BitSet();
    Map<String, RewrittenFile> rewritten = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> before = new ArrayList<>(stepFiles.size());
    for (int k = 0; k < stepFiles.size(); k++) {
      FileCopy file = stepFiles.get(k);
      int entry = entries[k];
      Throwable failed = admission.takePlaces(1);
      if (failed != null) {
        before.add(CompletableFuture.failedFuture(failed));
        break;
      }
      CompletableFuture<Void> put =
          put(
              file,
              () -> {
                files.put(file, step, rewritten);
                synchronized (done) {
                  done.set(entry);
                }
              });
      order.started(file.target(), put);
      put.whenComplete(
          (result, e) -> {
            order.finished(file.target(), put);
            admission.releasePlaces(1);
          });
      before.add(put);
    }
    before.addAll(order.awaited(step.awaited()));
    FileCopy manifest = step.manifest();
    CompletableFuture<Void> put = CompletableFuture.allOf(before.toArray(CompletableFuture[]::new));
    // the files in place, and the check of their source lengths passed where there is one
    CompletableFuture<Void> ready = check == null ? put : CompletableFuture.allOf(put, check);
    int reserved = budget.reserve(step);
    ManifestWriter.Rewrite rewrite =
        manifests.manifest(step, path -> files.rewrittenDeleteFile(path, step, rewritten));
    CompletableFuture<Long> length;
    if (reserved > 0) {
      // the rewrite reads nothing the copies write: it runs beside them, and only its write waits
      CompletableFuture<byte[]> rendered =
          onExecutor(NOTHING, manifest, () -> manifests.render(manifest, rewrite));
      length =
          writeAfter(
              CompletableFuture.allOf(ready, rendered),
              manifest,
              () -> manifests.writeRendered(manifest, rendered.join()));
      length.whenComplete((result, e) -> budget.release(reserved));
      order.manifest(manifest.target(), rendered.thenApply(bytes -> (long) bytes.length), length);
    } else {
      length = writeAfter(ready, manifest, () -> manifests.write(manifest, rewrite));
      order.manifest(manifest.target(), length, length);
    }
    return length.whenComplete(
        (result, e) -> {
          synchronized (done) {
            if (!done.isEmpty()) {
              written.addEntries(manifest.source(), done);
            }
          }
        });
  }

  private CompletableFuture<Long> submit(ManifestListCopy step) {
    PublishOrder.ListInputs inputs = order.inputsOf(step);
    FileCopy list = step.manifestList();
    ManifestWriter.Rewrite rewrite = manifests.manifestList(step);
    int reserved = budget.reserve(step);
    if (reserved > 0) {
      // rendered once its manifests' lengths are known, written once they are in place
      CompletableFuture<byte[]> rendered =
          onExecutor(inputs.lengthsKnown(), list, () -> manifests.render(list, rewrite));
      CompletableFuture<Long> done =
          writeAfter(
              CompletableFuture.allOf(inputs.manifestsWritten(), rendered),
              list,
              () -> manifests.writeRendered(list, rendered.join()));
      done.whenComplete((result, e) -> budget.release(reserved));
      return done;
    }
    return writeAfter(inputs.manifestsWritten(), list, () -> manifests.write(list, rewrite));
  }

  private CompletableFuture<Void> submit(StatisticsCopy step) {
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    for (FileCopy file : step.files()) {
      puts.add(
          put(
              file,
              () -> {
                files.copy(file, true, "table metadata");
                written.add(file.target());
              }));
    }
    return CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new));
  }

  /** Puts one file in place, on the executor. */
  private interface Put {
    void run() throws IOException;
  }

  /** An I/O step of a rewritten file, run on the executor. */
  private interface IoCall<T> {
    T call() throws IOException;
  }

  private CompletableFuture<Void> put(FileCopy file, Put put) {
    if (!file.kind().rewritten()) {
      progress.plannedBytes(Math.max(0, file.expectedSize()));
    }
    return CompletableFuture.runAsync(
        () -> {
          try {
            put.run();
            progress.fileDone();
          } catch (IOException e) {
            throw CopyErrors.cannotPut(table, file, e);
          }
        },
        executor);
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
            throw CopyErrors.cannotPut(table, file, e);
          }
        },
        executor);
  }

  /** Writes a rewritten file once {@code after} completes, and counts it as done. */
  private CompletableFuture<Long> writeAfter(
      CompletableFuture<?> after, FileCopy file, IoCall<Long> write) {
    return onExecutor(
        after,
        file,
        () -> {
          long length = write.call();
          progress.fileDone();
          return length;
        });
  }
}
