package io.icerepl.app.engine.retention;

import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.RetentionPolicy;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * How a replica's own snapshot retention runs, for the {@code expire} command and the service
 * alike. The table-level policy is the replica's {@code history.expire.*} properties; these options
 * override parts of it.
 *
 * @param expire which snapshots may expire: retention period, retain-last, a time fuse, explicit
 *     ids, dry run
 * @param maxRefAgeMs drop refs other than main whose snapshot is older than this (table level)
 * @param replicaOwnsFiles delete unreachable files even when the table says {@code
 *     gc.enabled=false}
 */
public record RetentionOptions(
    ExpireOptions expire, Optional<Long> maxRefAgeMs, boolean replicaOwnsFiles) {

  /** A policy only, as a service rule sets it: no time fuse, no explicit ids, not a dry run. */
  public static RetentionOptions policy(
      Optional<Long> retentionPeriodMs,
      Optional<Integer> retainLast,
      Optional<Long> maxRefAgeMs,
      boolean replicaOwnsFiles) {
    return new RetentionOptions(
        new ExpireOptions(Optional.empty(), retentionPeriodMs, retainLast, Set.of(), false),
        maxRefAgeMs,
        replicaOwnsFiles);
  }

  /** Applies {@link #maxRefAgeMs} to the table-level policy the replica's properties give. */
  public UnaryOperator<RetentionPolicy> adjustment() {
    return maxRefAgeMs
        .<UnaryOperator<RetentionPolicy>>map(
            age -> p -> new RetentionPolicy(p.minSnapshotsToKeep(), p.maxSnapshotAgeMs(), age))
        .orElse(UnaryOperator.identity());
  }

  /** How expiry treats the replica, reading metadata files up to {@code maxMetadataBytes}. */
  public RetentionSettings settings(long maxMetadataBytes) {
    return new RetentionSettings(
        replicaOwnsFiles, RetentionSettings.defaults().batchSize(), maxMetadataBytes);
  }
}
