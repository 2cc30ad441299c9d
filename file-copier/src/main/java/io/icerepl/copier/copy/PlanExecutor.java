package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.CopyPlan;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.deletes.RewrittenFile;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.puffin.DeletionVectorRewriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a copy plan's files in place, phase by phase in publish order, each phase in parallel on the
 * given executor. A phase starts only when the previous one completed, so no replica file ever
 * names one that is not there yet. Lengths recorded in manifests and manifest lists are the replica
 * files' own.
 */
public final class PlanExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(PlanExecutor.class);

  /** Long copies log their progress this often. */
  private static final long LOG_INTERVAL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

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
   * Puts every file of the plan in place. When a file fails, the files this call wrote are removed
   * again: no published metadata names them yet, and the replica is left as it was. They are left
   * when {@code lock} was lost meanwhile: the run that holds the table now may have published them.
   */
  public Outcome execute(String table, CopyPlan plan, PathMapping mapping, ObjectStore.Lock lock) {
    Run run = new Run(table, plan, mapping);
    try {
      run.phase(plan.files(), run::putFile);
      run.phase(plan.manifests(), run::rewriteManifest);
      run.phase(plan.manifestLists(), run::rewriteManifestList);
    } catch (RuntimeException e) {
      try {
        lock.checkHeld("remove the files of a failed commit");
      } catch (IOException | RuntimeException lost) {
        lost.addSuppressed(e);
        throw lost instanceof RuntimeException r ? r : new UncheckedIOException((IOException) lost);
      }
      run.removeWritten(e);
      throw e;
    }
    return new Outcome(
        run.filesCopied.get(),
        run.bytesCopied.get(),
        run.filesRewritten.get(),
        run.bytesWritten.get());
  }

  private final class Run {
    private final String table;
    private final CopyPlan plan;
    private final PathMapping mapping;
    private final Map<String, RewrittenFile> rewritten = new ConcurrentHashMap<>();
    private final Map<String, Long> manifestLengths = new ConcurrentHashMap<>();
    private final java.util.Set<String> written = ConcurrentHashMap.newKeySet();
    private final long startNanos = System.nanoTime();
    private final long filesTotal;
    private final long bytesTotal;
    private final AtomicLong filesDone = new AtomicLong();
    private final AtomicLong lastLogNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong filesCopied = new AtomicLong();
    private final AtomicLong bytesCopied = new AtomicLong();
    private final AtomicLong filesRewritten = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();

    Run(String table, CopyPlan plan, PathMapping mapping) {
      this.table = table;
      this.plan = plan;
      this.mapping = mapping;
      this.filesTotal = plan.size();
      this.bytesTotal =
          plan.files().stream()
              .filter(f -> !f.kind().rewritten())
              .mapToLong(f -> Math.max(0, f.expectedSize()))
              .sum();
    }

    private void reportProgress() {
      CopyProgress progress =
          new CopyProgress(
              table,
              filesDone.incrementAndGet(),
              filesTotal,
              bytesCopied.get(),
              bytesTotal,
              java.time.Duration.ofNanos(System.nanoTime() - startNanos));
      listener.onProgress(progress);
      long now = System.nanoTime();
      long last = lastLogNanos.get();
      if (now - last > LOG_INTERVAL_NANOS && lastLogNanos.compareAndSet(last, now)) {
        LOG.info(
            "{}: copied {}/{} files, {}/{} bytes, {} MiB/s, about {} left",
            table,
            progress.filesDone(),
            progress.filesTotal(),
            progress.bytesDone(),
            progress.bytesTotal(),
            String.format("%.1f", progress.bytesPerSecond() / (1024 * 1024)),
            progress.eta());
      }
    }

    void removeWritten(RuntimeException failure) {
      for (String path : written) {
        try {
          target.delete(path);
        } catch (IOException e) {
          failure.addSuppressed(e);
        }
      }
    }

    interface Step {
      void apply(FileCopy file) throws IOException;
    }

    void phase(List<FileCopy> files, Step step) {
      List<CompletableFuture<Void>> futures = new ArrayList<>(files.size());
      for (FileCopy file : files) {
        futures.add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    step.apply(file);
                    written.add(file.target());
                    reportProgress();
                  } catch (IOException e) {
                    throw new UncheckedIOException(
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
                },
                executor));
      }
      try {
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
      } catch (CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof ReplicationException r) {
          throw r;
        }
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        throw e;
      }
    }

    void putFile(FileCopy file) throws IOException {
      switch (file.kind()) {
        case POSITION_DELETE -> rewriteDelete(file);
        case DELETION_VECTOR -> rewriteDelete(file);
        default -> copy(file);
      }
    }

    private void copy(FileCopy file) throws IOException {
      target.copyFrom(source, file.source(), file.target());
      long length = target.length(file.target()).orElse(-1);
      if (file.expectedSize() >= 0 && length != file.expectedSize()) {
        throw new IOException(
            "copied " + length + " bytes where " + file.expectedSize() + " were expected");
      }
      filesCopied.incrementAndGet();
      bytesCopied.addAndGet(length);
      LOG.debug("{}: copied {} -> {} ({} bytes)", table, file.source(), file.target(), length);
    }

    private void rewriteDelete(FileCopy file) throws IOException {
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

    /** The replica length and offsets of a delete file a manifest names, null if copied as is. */
    private RewrittenFile rewrittenDeleteFile(String sourcePath) {
      RewrittenFile done = rewritten.get(sourcePath);
      if (done != null) {
        return done;
      }
      FileCopy earlier = plan.rewrittenAtTarget().get(sourcePath);
      if (earlier == null) {
        return null;
      }
      return rewritten.computeIfAbsent(
          sourcePath,
          path -> {
            try (SeekableInput in = target.openSeekable(earlier.target())) {
              return earlier.kind() == FileKind.DELETION_VECTOR
                  ? DeletionVectorRewriter.describe(in, earlier.target())
                  : PositionDeleteRewriter.describe(earlier.fileFormat(), in, earlier.target());
            } catch (IOException e) {
              throw new UncheckedIOException("Cannot read replica file " + earlier.target(), e);
            }
          });
    }

    void rewriteManifest(FileCopy file) throws IOException {
      try (InputStream in = source.open(file.source())) {
        long length =
            target.write(
                file.target(),
                out ->
                    ManifestRewriter.rewrite(
                        in, out, file.source(), mapping::map, this::rewrittenDeleteFile));
        manifestLengths.put(file.target(), length);
        bytesWritten.addAndGet(length);
      }
      filesRewritten.incrementAndGet();
      LOG.debug("{}: rewrote manifest {} -> {}", table, file.source(), file.target());
    }

    void rewriteManifestList(FileCopy file) throws IOException {
      try (InputStream in = source.open(file.source())) {
        long length =
            target.write(
                file.target(),
                out ->
                    ManifestListRewriter.rewrite(
                        in, out, file.source(), mapping::map, this::replicaManifestLength));
        bytesWritten.addAndGet(length);
      }
      filesRewritten.incrementAndGet();
      LOG.debug("{}: rewrote manifest list {} -> {}", table, file.source(), file.target());
    }

    /** manifest_length must be the replica manifest's: object-store readers trust it. */
    private long replicaManifestLength(String sourceManifest) {
      String targetManifest = mapping.map(sourceManifest);
      Long length = manifestLengths.get(targetManifest);
      if (length == null) {
        length = plan.replicaManifestLengths().get(targetManifest);
      }
      if (length == null) {
        try {
          length =
              target
                  .length(targetManifest)
                  .orElseThrow(
                      () -> new IOException("replica manifest " + targetManifest + " is missing"));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return length;
    }
  }
}
