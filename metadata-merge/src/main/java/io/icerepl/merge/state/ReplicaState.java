package io.icerepl.merge.state;

import io.icerepl.merge.retention.ExpiredSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the replicator remembers about one replica beyond its metadata: what the replica's own
 * retention removed (so replication does not bring it back), and deletions not finished yet (so a
 * rerun after a crash can finish them).
 *
 * @param expiredSnapshotIds snapshots the replica's retention expired
 * @param droppedRefs refs it dropped, with the snapshot each pointed at
 * @param pendingDeletes expired snapshots whose unreachable files may not all be deleted yet
 */
public record ReplicaState(
    Set<Long> expiredSnapshotIds, Map<String, Long> droppedRefs, List<ExpiredSnapshot> pendingDeletes) {

  public ReplicaState {
    expiredSnapshotIds = Set.copyOf(expiredSnapshotIds);
    droppedRefs = Map.copyOf(droppedRefs);
    pendingDeletes = List.copyOf(pendingDeletes);
  }

  public static ReplicaState empty() {
    return new ReplicaState(Set.of(), Map.of(), List.of());
  }
}
