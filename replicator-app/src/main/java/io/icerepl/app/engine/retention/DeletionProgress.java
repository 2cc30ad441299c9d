package io.icerepl.app.engine.retention;

import java.time.Duration;
import java.util.Optional;

/**
 * How far the deletion of an expiry's unreachable files is.
 *
 * @param table the replica location
 * @param filesDone files deleted so far
 * @param filesTotal files to delete
 * @param elapsed time since the deletion started
 */
public record DeletionProgress(String table, long filesDone, long filesTotal, Duration elapsed) {

  /** Files deleted per second so far. */
  public double filesPerSecond() {
    return filesDone / (Math.max(elapsed.toMillis(), 1) / 1000.0);
  }

  /** Estimated time left at the current rate; empty before the first file is deleted. */
  public Optional<Duration> eta() {
    long pending = Math.max(0, filesTotal - filesDone);
    if (pending == 0) {
      return Optional.of(Duration.ZERO);
    }
    double rate = filesPerSecond();
    return rate <= 0
        ? Optional.empty()
        : Optional.of(Duration.ofMillis((long) (pending / rate * 1000)));
  }

  /** Receives progress, from the thread that deletes. */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = progress -> {};

    void onProgress(DeletionProgress progress);
  }
}
