package io.icerepl.app.service.status;

import io.icerepl.app.engine.worker.TableKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToDoubleFunction;

/**
 * Every meter of the {@link StatusBoard}, registered here and nowhere else: {@code
 * replicator_lag_seconds} (gauge), {@code replicator_commits_total}, {@code
 * replicator_bytes_copied_total}, {@code replicator_failures_total} (counters), tagged {@code
 * table} (relative path) and {@code target}; {@code replicator_failed_tables}, {@code
 * replicator_diverged_tables}, {@code replicator_split_brain_tables}, {@code
 * replicator_failed_discoveries}; {@code replicator_lanes_refused_total} (tag {@code rule}); {@code
 * replicator_catalog_failures_total} (tags {@code rule}, {@code target}); {@code
 * replicator_verify_problems} and {@code replicator_verify_failures_total} (tags {@code rule},
 * {@code target}, {@code table}). Micrometer returns the meter already registered under the same
 * name and tags, so each method is safe to call again.
 */
final class StatusMeters {
  private final MeterRegistry meters;

  StatusMeters(MeterRegistry meters) {
    this.meters = meters;
  }

  /** The board-wide gauges, read from {@code board} when scraped. */
  void board(StatusBoard board, DiscoveryFailures discoveries) {
    Gauge.builder("replicator.failed.tables", board, StatusBoard::failedTables)
        .description("Replicas FAILED or DIVERGED: they need an operator")
        .register(meters);
    // a DIVERGED replica is never retried into shape, unlike a FAILED one: alerts tell them apart
    Gauge.builder("replicator.diverged.tables", board, StatusBoard::divergedTables)
        .description(
            "Replicas DIVERGED: changed behind the replicator's back, left alone until repaired")
        .register(meters);
    // an old primary that wrote after failover is not a failure of the replica, but two writers
    Gauge.builder("replicator.split.brain.tables", board, StatusBoard::splitBrainTables)
        .description("Replicas OLD_PRIMARY_WROTE: the old primary wrote after a failover")
        .register(meters);
    Gauge.builder("replicator.failed.discoveries", discoveries, DiscoveryFailures::count)
        .description("Rules whose source prefix could not be listed at the last reconciliation")
        .register(meters);
  }

  /** A table's counters. */
  TableMeters table(TableKey key) {
    Tags tags = tableTags(key);
    return new TableMeters(
        Counter.builder("replicator.commits")
            .description("Replica commits made")
            .tags(tags)
            .register(meters),
        Counter.builder("replicator.bytes.copied")
            .description("Bytes copied to replicas")
            .tags(tags)
            .register(meters),
        Counter.builder("replicator.failures")
            .description("Failed replication runs")
            .tags(tags)
            .register(meters));
  }

  /** A table's lag gauge, read from {@code lagSeconds} when scraped. */
  void lag(TableKey key, TableEntry entry, ToDoubleFunction<TableEntry> lagSeconds) {
    Gauge.builder("replicator.lag.seconds", entry, lagSeconds)
        .description("Seconds since the oldest source commit the replica lacks; 0 when in sync")
        .tags(tableTags(key))
        .register(meters);
  }

  private static Tags tableTags(TableKey key) {
    return Tags.of("table", key.table(), "target", key.target());
  }

  /** A table's counters: what its runs did. */
  record TableMeters(Counter commits, Counter bytes, Counter failures) {}

  void laneRefused(String rule) {
    Counter.builder("replicator.lanes.refused")
        .description(
            "Tables refused a lane because their rule holds replicator.limits.lanes-per-rule")
        .tag("rule", rule)
        .register(meters)
        .increment();
  }

  /** A run or a discovery failed on a catalog; {@code target} is empty for a discovery. */
  void catalogFailure(String rule, String target) {
    Counter.builder("replicator.catalog.failures")
        .description(
            "Runs and discoveries that failed because a source or target catalog was down,"
                + " refused or answered with an error")
        .tag("rule", rule)
        .tag("target", target)
        .register(meters)
        .increment();
  }

  /**
   * The key's verification meters: its problem gauge read from {@code entry}, and the counter of
   * verifications that could not complete.
   */
  Counter verify(TableKey key, TableEntry entry) {
    Tags tags = Tags.of("rule", key.rule(), "target", key.target(), "table", key.table());
    Gauge.builder("replicator.verify.problems", entry, TableEntry::lastVerifyProblems)
        .description("Problems the last verification of the replica found (NaN before one)")
        .tags(tags)
        .register(meters);
    return Counter.builder("replicator.verify.failures")
        .description("Verifications of the replica that could not complete")
        .tags(tags)
        .register(meters);
  }
}
