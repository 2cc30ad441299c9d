package io.icerepl.merge.retention;

import java.util.Optional;
import java.util.Set;

/**
 * One expiry run's controls, as ClickHouse's {@code expire_snapshots} names them.
 *
 * @param expireBeforeMs safety fuse: no snapshot with {@code timestamp-ms >= expireBeforeMs}
 *     expires
 * @param retentionPeriodMs overrides the table-level max snapshot age (never a ref's own)
 * @param retainLast overrides the table-level min snapshots to keep (never a ref's own)
 * @param snapshotIds expire exactly these (never the current snapshot or a ref's); excludes the two
 *     above
 * @param dryRun plan and count, change nothing
 */
public record ExpireOptions(
    Optional<Long> expireBeforeMs,
    Optional<Long> retentionPeriodMs,
    Optional<Integer> retainLast,
    Set<Long> snapshotIds,
    boolean dryRun) {

  public ExpireOptions {
    snapshotIds = Set.copyOf(snapshotIds);
  }

  public static ExpireOptions defaults() {
    return new ExpireOptions(Optional.empty(), Optional.empty(), Optional.empty(), Set.of(), false);
  }
}
