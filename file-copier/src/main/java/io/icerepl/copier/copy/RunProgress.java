package io.icerepl.copier.copy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one run has planned and done so far: told to the {@link CopyProgress.Listener} after each
 * file, logged every few seconds of a long copy, and counted for the run's {@link
 * PlanExecutor.Outcome}. Updated from the copying threads.
 */
final class RunProgress {
  private static final Logger LOG = LoggerFactory.getLogger(PlanExecutor.class);

  /** Long copies log their progress this often. */
  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final String table;
  private final CopyProgress.Listener listener;
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

  RunProgress(String table, CopyProgress.Listener listener) {
    this.table = table;
    this.listener = listener;
  }

  /** A step of {@code files} files was accepted. */
  void planned(int files) {
    filesTotal.addAndGet(files);
  }

  /** A file of {@code bytes} is to be copied byte for byte. */
  void plannedBytes(long bytes) {
    bytesTotal.addAndGet(bytes);
  }

  /** The plan is complete, and with it the totals. */
  void planComplete() {
    planComplete = true;
  }

  void copied(long bytes) {
    filesCopied.incrementAndGet();
    bytesCopied.addAndGet(Math.max(0, bytes));
  }

  void rewritten(long bytes) {
    bytesWritten.addAndGet(bytes);
    filesRewritten.incrementAndGet();
  }

  PlanExecutor.Outcome outcome() {
    return new PlanExecutor.Outcome(
        filesCopied.get(), bytesCopied.get(), filesRewritten.get(), bytesWritten.get());
  }

  /** One more file is in place. */
  void fileDone() {
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
}
