package io.icerepl.copier.copy;

import java.time.Duration;
import java.util.Optional;

/**
 * How far one replica commit's copying is. The plan is streamed while files are copied, so the
 * totals count what was planned so far until {@code planComplete}. Rewritten files count once
 * written; their final size is unknown before, so {@code bytesTotal} counts byte-for-byte copies
 * only.
 *
 * @param table the table
 * @param filesDone files put in place so far
 * @param filesTotal files planned so far
 * @param bytesDone bytes of byte-for-byte copies done
 * @param bytesTotal bytes of byte-for-byte copies planned so far
 * @param elapsed time since the copying started
 * @param planComplete whether the plan is complete, and with it the totals
 */
public record CopyProgress(
    String table,
    long filesDone,
    long filesTotal,
    long bytesDone,
    long bytesTotal,
    Duration elapsed,
    boolean planComplete) {

  /** Bytes per second so far. */
  public double bytesPerSecond() {
    double seconds = Math.max(elapsed.toMillis(), 1) / 1000.0;
    return bytesDone / seconds;
  }

  /** Bytes still to copy, of those planned so far. */
  public long bytesPending() {
    return Math.max(0, bytesTotal - bytesDone);
  }

  /**
   * Estimated time left at the current rate; empty while the plan is incomplete, or while bytes are
   * pending and none was copied yet.
   */
  public Optional<Duration> eta() {
    if (!planComplete) {
      return Optional.empty();
    }
    if (bytesPending() == 0) {
      return Optional.of(Duration.ZERO);
    }
    double rate = bytesPerSecond();
    return rate <= 0
        ? Optional.empty()
        : Optional.of(Duration.ofMillis((long) (bytesPending() / rate * 1000)));
  }

  /** Receives progress; called from copying threads, so implementations must be thread-safe. */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = progress -> {};

    void onProgress(CopyProgress progress);
  }
}
