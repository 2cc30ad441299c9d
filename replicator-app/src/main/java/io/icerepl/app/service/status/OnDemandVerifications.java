package io.icerepl.app.service.status;

import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.TableKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifications asked for through the API: at most {@code maxPending} queued or running at once
 * (reading every file of a table is not free), waited for only up to a timeout, after which the
 * verification goes on in its table's lane and its report lands in the table's status. Each request
 * and each outcome is logged with who asked.
 */
final class OnDemandVerifications {
  private static final Logger LOG = LoggerFactory.getLogger(OnDemandVerifications.class);

  /** What became of a request. */
  sealed interface Outcome {}

  record Done(VerifyReport report) implements Outcome {}

  /** Still running after the timeout; its report will be in the table's status. */
  record Running(Duration waited) implements Outcome {}

  record TooManyPending(int pending) implements Outcome {}

  record Failed(String message) implements Outcome {}

  private final Function<TableKey, CompletableFuture<VerifyReport>> verify;
  private final Semaphore permits;
  private final int maxPending;
  private final Duration timeout;

  /**
   * @param verify queues a verification in the key's lane
   */
  OnDemandVerifications(
      Function<TableKey, CompletableFuture<VerifyReport>> verify,
      int maxPending,
      Duration timeout) {
    this.verify = verify;
    this.permits = new Semaphore(maxPending);
    this.maxPending = maxPending;
    this.timeout = timeout;
  }

  Outcome request(TableKey key, String who, String from) throws InterruptedException {
    if (!permits.tryAcquire()) {
      LOG.warn(
          "{}: verification on {} asked by {} from {} refused: {} verifications pending",
          key.table(),
          key.target(),
          who,
          from,
          maxPending);
      return new TooManyPending(maxPending);
    }
    LOG.info("{}: verification on {} asked by {} from {}", key.table(), key.target(), who, from);
    CompletableFuture<VerifyReport> result;
    try {
      result = verify.apply(key);
    } catch (RuntimeException e) {
      permits.release();
      throw e;
    }
    result.whenComplete(
        (report, error) -> {
          permits.release();
          if (error != null) {
            LOG.warn(
                "{}: verification on {} asked by {} did not complete: {}",
                key.table(),
                key.target(),
                who,
                error.getMessage());
          } else {
            LOG.info(
                "{}: verification on {} asked by {}: {} checked, {} problems",
                key.table(),
                key.target(),
                who,
                report.checked(),
                report.problems());
          }
        });
    try {
      return new Done(result.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return new Running(timeout);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return new Failed(cause.getMessage() != null ? cause.getMessage() : cause.toString());
    }
  }
}
