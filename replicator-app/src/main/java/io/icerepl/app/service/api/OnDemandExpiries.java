package io.icerepl.app.service.api;

import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.worker.TableKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Expiries asked for through the API: on-demand runs, refused when the rule's retention is off. */
final class OnDemandExpiries extends OnDemandRuns<RetentionResult> {
  private static final Logger LOG = LoggerFactory.getLogger(OnDemandExpiries.class);

  record RetentionDisabled(String rule) implements Outcome<RetentionResult> {}

  private final Function<TableKey, CompletableFuture<RetentionResult>> expire;
  private final Predicate<String> retentionEnabled;

  /**
   * @param expire queues an expiry in the key's lane (the coordinator's {@code expireNow})
   * @param retentionEnabled whether a rule, by name, has its retention enabled
   */
  OnDemandExpiries(
      Function<TableKey, CompletableFuture<RetentionResult>> expire,
      Predicate<String> retentionEnabled,
      int maxPending,
      Duration timeout) {
    super(
        "expiries",
        done -> "expired " + done.expiredSnapshotIds().size() + " snapshots",
        maxPending,
        timeout);
    this.expire = expire;
    this.retentionEnabled = retentionEnabled;
  }

  Outcome<RetentionResult> request(TableKey key, String who, String from)
      throws InterruptedException {
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
    return request(key, "expiry", who, from, () -> expire.apply(key));
  }
}
