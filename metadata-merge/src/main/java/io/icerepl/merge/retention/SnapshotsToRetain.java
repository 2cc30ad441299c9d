package io.icerepl.merge.retention;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.SnapshotGraph;
import io.icerepl.merge.model.TableMetadata;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The spec's retention policy: which snapshots the remaining refs and the table-level ages keep.
 */
final class SnapshotsToRetain {
  private SnapshotsToRetain() {}

  /**
   * @param replica the table, whose snapshots and their parents are read
   * @param refs the refs that remain after dropping old ones
   * @param table the effective table-level policy (overrides of this run applied)
   */
  static Set<Long> compute(
      TableMetadata replica,
      List<SnapshotRef> refs,
      RetentionPolicy table,
      Optional<Long> currentSnapshotId,
      long nowMs) {
    Set<Long> retain = new HashSet<>();
    // Everything a remaining ref can reach: a snapshot outside it is "unreferenced".
    Set<Long> referenced = new HashSet<>();
    for (SnapshotRef ref : refs) {
      retain.add(ref.snapshotId());
      referenced.add(ref.snapshotId());
      if (ref.isBranch()) {
        walkBranch(replica.graph(), ref, table, nowMs, retain, referenced);
      }
    }
    currentSnapshotId.ifPresent(retain::add);
    // Iceberg keeps young snapshots no ref reaches (a staged write-audit-publish snapshot waiting
    // to be published, the history of a dropped branch) until the table-level age passes. Old
    // ancestors of a branch are not "unreferenced": the branch's own policy decided on them.
    for (Snapshot snapshot : replica.snapshots()) {
      if (!referenced.contains(snapshot.snapshotId())
          && youngerThan(snapshot, table.maxSnapshotAgeMs(), nowMs)) {
        retain.add(snapshot.snapshotId());
      }
    }
    return retain;
  }

  /**
   * Keeps the branch's ancestors, its head first, while each is among the first
   * min-snapshots-to-keep or younger than max-snapshot-age-ms; stops at the first that is neither.
   * The walk goes on past that point only to record what the branch references.
   */
  private static void walkBranch(
      SnapshotGraph graph,
      SnapshotRef branch,
      RetentionPolicy table,
      long nowMs,
      Set<Long> retain,
      Set<Long> referenced) {
    int minSnapshotsToKeep = branch.minSnapshotsToKeep(table);
    long maxSnapshotAgeMs = branch.maxSnapshotAgeMs(table);
    boolean keeping = true;
    int position = 0;
    // A missing parent (already expired) ends the chain; the parser refused chains that loop.
    for (Snapshot snapshot : graph.ancestors(branch.snapshotId())) {
      position++;
      referenced.add(snapshot.snapshotId());
      if (keeping
          && (position <= minSnapshotsToKeep || youngerThan(snapshot, maxSnapshotAgeMs, nowMs))) {
        retain.add(snapshot.snapshotId());
      } else {
        keeping = false;
      }
    }
  }

  /** Within the age: {@code now - timestamp-ms <= max}, the spec's inclusive bound. */
  static boolean youngerThan(Snapshot snapshot, long maxAgeMs, long nowMs) {
    return nowMs - snapshot.timestampMs() <= maxAgeMs;
  }
}
