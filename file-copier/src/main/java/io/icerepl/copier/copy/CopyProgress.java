package io.icerepl.copier.copy;

import java.time.Duration;

/**
 * How far one replica commit's copying is. Rewritten files count once written; their final size is
 * unknown before, so {@code bytesTotal} counts byte-for-byte copies only.
 *
 * @param table the table
 * @param filesDone files put in place so far
 * @param filesTotal files the plan puts in place
 * @param bytesDone bytes of byte-for-byte copies done
 * @param bytesTotal bytes of byte-for-byte copies planned
 * @param elapsed time since the copying started
 */
public record CopyProgress(
    String table,
    long filesDone,
    long filesTotal,
    long bytesDone,
    long bytesTotal,
    Duration elapsed) {

  /** Bytes per second so far. */
  public double bytesPerSecond() {
    double seconds = Math.max(elapsed.toMillis(), 1) / 1000.0;
    return bytesDone / seconds;
  }

  /** Bytes still to copy. */
  public long bytesPending() {
    return Math.max(0, bytesTotal - bytesDone);
  }

  /** Estimated time left at the current rate, or null before anything was copied. */
  public Duration eta() {
    double rate = bytesPerSecond();
    return rate <= 0 ? null : Duration.ofMillis((long) (bytesPending() / rate * 1000));
  }

  /** Receives progress; called from copying threads, so implementations must be thread-safe. */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = progress -> {};

    void onProgress(CopyProgress progress);
  }
}
