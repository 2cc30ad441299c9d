package io.icerepl.app.service.status;

import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.worker.TableKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expiries asked for through the API: refused when the rule's retention is disabled, at most {@code
 * maxPending} queued or running at once (a semaphore, as MirrorMaker bounds in-flight work), and
 * waited for only up to a timeout, after which the expiry goes on in its table's lane. Each request
 * and each outcome is logged with who asked.
 */
final class OnDemandExpiries {
  private static final Logger LOG = LoggerFactory.getLogger(OnDemandExpiries.class);

  /** What became of a request. */
  sealed interface Outcome {}

  record Done(RetentionResult result) implements Outcome {}

  /** Still running after the timeout; its outcome is logged. */
  record Running(Duration waited) implements Outcome {}

  record RetentionDisabled(String rule) implements Outcome {}

  record TooManyPending(int pending) implements Outcome {}

  record Failed(String message) implements Outcome {}

  private final Function<TableKey, CompletableFuture<RetentionResult>> expire;
  private final Predicate<String> retentionEnabled;
  private final Semaphore permits;
  private final int maxPending;
  private final Duration timeout;

  /**
   * @param expire queues an expiry in the key's lane (the coordinator's {@code expireNow})
   * @param retentionEnabled whether a rule, by name, has its retention enabled
   */
  OnDemandExpiries(
      Function<TableKey, CompletableFuture<RetentionResult>> expire,
      Predicate<String> retentionEnabled,
      int maxPending,
      Duration timeout) {
    this.expire = expire;
    this.retentionEnabled = retentionEnabled;
    this.permits = new Semaphore(maxPending);
    this.maxPending = maxPending;
    this.timeout = timeout;
  }

  Outcome request(TableKey key, String who, String from) throws InterruptedException {
    if (!retentionEnabled.test(key.rule())) {
      LOG.warn(
          "{}: expiry on {} asked by {} from {} refused: retention is disabled for rule {}",
          key.table(),
          key.target(),
          who,
          from,
          key.rule());
      return new RetentionDisabled(key.rule());
    }
    if (!permits.tryAcquire()) {
      LOG.warn(
          "{}: expiry on {} asked by {} from {} refused: {} expiries pending",
          key.table(),
          key.target(),
          who,
          from,
          maxPending);
      return new TooManyPending(maxPending);
    }
    LOG.info("{}: expiry on {} asked by {} from {}", key.table(), key.target(), who, from);
    CompletableFuture<RetentionResult> result;
    try {
      result = expire.apply(key);
    } catch (RuntimeException e) {
      permits.release();
      throw e;
    }
    result.whenComplete(
        (done, error) -> {
          permits.release();
          if (error != null) {
            LOG.warn(
                "{}: expiry on {} asked by {} failed: {}",
                key.table(),
                key.target(),
                who,
                error.getMessage());
          } else {
            LOG.info(
                "{}: expiry on {} asked by {} expired {} snapshots",
                key.table(),
                key.target(),
                who,
                done.expiredSnapshotIds().size());
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
