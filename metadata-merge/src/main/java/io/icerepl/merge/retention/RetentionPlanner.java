package io.icerepl.merge.retention;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides what one expiry of a replica removes: the spec's snapshot retention policy with the
 * replica's own table-level policy, plus ClickHouse's {@code expire_snapshots} controls. Pure: the
 * time is passed in and nothing is read or written.
 */
public final class RetentionPlanner {
  private RetentionPlanner() {}

  /**
   * Decides what an expiry removes.
   *
   * @param replica the replica's current metadata
   * @param tablePolicy the replicator's table-level policy for this replica (already resolved by
   *     the caller from its configuration or the table's {@code history.expire.*} properties)
   * @param options this run's controls
   * @param nowMs the time ages are measured from
   * @throws IllegalArgumentException for invalid option combinations, snapshot ids that may not be
   *     expired, or refs the spec does not allow
   */
  public static RetentionPlan plan(
      TableMetadata replica, RetentionPolicy tablePolicy, ExpireOptions options, long nowMs) {
    Objects.requireNonNull(replica, "replica");
    Objects.requireNonNull(tablePolicy, "tablePolicy");
    Objects.requireNonNull(options, "options");
    validate(options);
    boolean explicit = !options.snapshotIds().isEmpty();
    // retention_period and retain_last replace the table-level values only; refs keep their own.
    RetentionPolicy effective =
        new RetentionPolicy(
            options.retainLast().orElse(tablePolicy.minSnapshotsToKeep()),
            options.retentionPeriodMs().orElse(tablePolicy.maxSnapshotAgeMs()),
            tablePolicy.maxRefAgeMs());

    Map<Long, Snapshot> snapshots = new LinkedHashMap<>();
    replica.snapshots().forEach(s -> snapshots.put(s.snapshotId(), s));
    // The parser refused metadata whose current snapshot or a ref names a snapshot it lacks.
    Optional<Long> current = replica.currentSnapshotId();

    List<SnapshotRef> retainedRefs = new ArrayList<>();
    List<DroppedRef> droppedRefs = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    for (SnapshotRef ref : SnapshotRef.readAll(replica)) {
      Snapshot snapshot = snapshots.get(ref.snapshotId());
      if (!explicit && !ref.isMain() && tooOld(ref, snapshot, effective, nowMs)) {
        droppedRefs.add(
            new DroppedRef(
                ref.name(),
                ref.snapshotId(),
                "older than max-ref-age-ms "
                    + ref.maxRefAgeMs(effective)
                    + " (snapshot "
                    + ref.snapshotId()
                    + " is "
                    + (nowMs - snapshot.timestampMs())
                    + " ms old)"));
      } else {
        retainedRefs.add(ref);
      }
    }

    Set<Long> expired =
        explicit
            ? explicitlyNamed(snapshots, retainedRefs, current, options)
            : byPolicy(replica, retainedRefs, effective, current, options, nowMs);

    List<Long> expiredInOrder = new ArrayList<>();
    for (Long id : snapshots.keySet()) {
      if (expired.contains(id)) {
        expiredInOrder.add(id);
      }
    }
    droppedRefs.sort(Comparator.comparing(DroppedRef::name));
    Set<String> droppedNames = new LinkedHashSet<>();
    droppedRefs.forEach(r -> droppedNames.add(r.name()));
    // dryRun changes nothing here: the plan is the same, the caller decides not to publish it.
    TableMetadata metadata = ExpiredMetadata.without(replica, expired, droppedNames);
    return new RetentionPlan(metadata, expiredInOrder, droppedRefs, warnings);
  }

  private static void validate(ExpireOptions options) {
    if (!options.snapshotIds().isEmpty()
        && (options.retentionPeriodMs().isPresent() || options.retainLast().isPresent())) {
      throw new IllegalArgumentException(
          "Cannot expire snapshots: snapshot_ids cannot be combined with retention_period or retain_last");
    }
    options
        .retainLast()
        .ifPresent(
            n -> {
              if (n < 1) {
                throw new IllegalArgumentException(
                    "Cannot expire snapshots: retain_last must be at least 1, got " + n);
              }
            });
    options
        .retentionPeriodMs()
        .ifPresent(
            ms -> {
              if (ms < 0) {
                throw new IllegalArgumentException(
                    "Cannot expire snapshots: retention_period must not be negative, got "
                        + ms
                        + " ms");
              }
            });
  }

  /** A ref other than main is dropped once its snapshot is older than its max-ref-age-ms. */
  private static boolean tooOld(
      SnapshotRef ref, Snapshot snapshot, RetentionPolicy table, long nowMs) {
    return nowMs - snapshot.timestampMs() > ref.maxRefAgeMs(table);
  }

  private static Set<Long> byPolicy(
      TableMetadata replica,
      List<SnapshotRef> refs,
      RetentionPolicy effective,
      Optional<Long> current,
      ExpireOptions options,
      long nowMs) {
    Set<Long> retain = SnapshotsToRetain.compute(replica, refs, effective, current, nowMs);
    Set<Long> expired = new LinkedHashSet<>();
    for (Snapshot snapshot : replica.snapshots()) {
      if (!retain.contains(snapshot.snapshotId()) && !fused(snapshot, options)) {
        expired.add(snapshot.snapshotId());
      }
    }
    return expired;
  }

  /**
   * snapshot_ids bypasses the policy: exactly the named snapshots expire, and each must be one the
   * policy could have expired too (never current, never a ref's, never after the fuse). Ids are
   * checked in ascending order so the error names the same one on every run.
   */
  private static Set<Long> explicitlyNamed(
      Map<Long, Snapshot> snapshots,
      List<SnapshotRef> refs,
      Optional<Long> current,
      ExpireOptions options) {
    List<SnapshotRef> byName = new ArrayList<>(refs);
    byName.sort(Comparator.comparing(SnapshotRef::name));
    for (long id : new TreeSet<>(options.snapshotIds())) {
      Snapshot snapshot = snapshots.get(id);
      if (snapshot == null) {
        throw new IllegalArgumentException(
            "Cannot expire snapshot " + id + ": the table has no such snapshot");
      }
      if (current.isPresent() && current.get() == id) {
        throw new IllegalArgumentException(
            "Cannot expire snapshot " + id + ": it is the current snapshot");
      }
      for (SnapshotRef ref : byName) {
        if (ref.snapshotId() == id) {
          throw new IllegalArgumentException(
              "Cannot expire snapshot " + id + ": ref '" + ref.name() + "' points at it");
        }
      }
      if (fused(snapshot, options)) {
        throw new IllegalArgumentException(
            "Cannot expire snapshot "
                + id
                + ": its timestamp-ms "
                + snapshot.timestampMs()
                + " is not before expire_before "
                + options.expireBeforeMs().get());
      }
    }
    return new LinkedHashSet<>(options.snapshotIds());
  }

  /** The expire_before safety fuse: a snapshot at or after it never expires. */
  private static boolean fused(Snapshot snapshot, ExpireOptions options) {
    return options.expireBeforeMs().isPresent()
        && snapshot.timestampMs() >= options.expireBeforeMs().get();
  }
}
