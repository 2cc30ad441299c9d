package io.icerepl.app.service.api;

import io.icerepl.app.engine.worker.TableKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work on one table asked for through the API and run in the table's lane: at most {@code
 * maxPending} queued or running at once (a semaphore, as MirrorMaker bounds in-flight work), waited
 * for only up to a timeout, after which it goes on in its lane and its outcome is logged (and, for
 * the work that reports there, shown in the table's status). Each request and each outcome is
 * logged with who asked and what.
 *
 * @param <T> what the work returns
 */
class OnDemandRuns<T> {
  private static final Logger LOG = LoggerFactory.getLogger(OnDemandRuns.class);

  /** What became of a request. */
  interface Outcome<T> {}

  record Done<T>(T result) implements Outcome<T> {}

  /** Still running after the timeout; its outcome is logged. */
  record Running<T>(Duration waited) implements Outcome<T> {}

  record TooManyPending<T>(int pending) implements Outcome<T> {}

  record Failed<T>(String message) implements Outcome<T> {}

  private final String kind;
  private final Function<T, String> describe;
  private final Semaphore permits;
  private final int maxPending;
  private final Duration timeout;

  /**
   * @param kind the work's name in the plural, as in "2 verifications pending"
   * @param describe what a finished run did, for the log
   */
  OnDemandRuns(String kind, Function<T, String> describe, int maxPending, Duration timeout) {
    this.kind = kind;
    this.describe = describe;
    this.permits = new Semaphore(maxPending);
    this.maxPending = maxPending;
    this.timeout = timeout;
  }

  /**
   * @param asked what was asked, for the log (e.g. "verification", "promotion, mode now")
   * @param work queues the work in the key's lane
   */
  Outcome<T> request(
      TableKey key, String asked, String who, String from, Supplier<CompletableFuture<T>> work)
      throws InterruptedException {
    if (!permits.tryAcquire()) {
      LOG.warn(
          "{}: {} on {} asked by {} from {} refused: {} {} pending",
          key.table(),
          asked,
          key.target(),
          who,
          from,
          maxPending,
          kind);
      return new TooManyPending<>(maxPending);
    }
    LOG.info("{}: {} on {} asked by {} from {}", key.table(), asked, key.target(), who, from);
    CompletableFuture<T> result;
    try {
      result = work.get();
    } catch (RuntimeException e) {
      permits.release();
      throw e;
    }
    result.whenComplete(
        (done, error) -> {
          permits.release();
          if (error != null) {
            LOG.warn(
                "{}: {} on {} asked by {} failed: {}",
                key.table(),
                asked,
                key.target(),
                who,
                error.getMessage());
          } else {
            LOG.info(
                "{}: {} on {} asked by {}: {}",
                key.table(),
                asked,
                key.target(),
                who,
                describe.apply(done));
          }
        });
    try {
      return new Done<>(result.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return new Running<>(timeout);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return new Failed<>(cause.getMessage() != null ? cause.getMessage() : cause.toString());
    }
  }
}
