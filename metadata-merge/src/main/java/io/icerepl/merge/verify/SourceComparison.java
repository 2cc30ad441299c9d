package io.icerepl.merge.verify;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.ReplicaState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a replica holds everything its source holds: every snapshot by id and every ref at the
 * same snapshot. What the replica's own retention removed is not missing: a snapshot it expired,
 * and a ref it dropped while the source's ref still points where it pointed then (a ref the source
 * moved since is replicated again, so it must be there).
 */
public final class SourceComparison {
  private SourceComparison() {}

  /**
   * @param checked how many snapshots and refs were compared
   * @param problems one line per snapshot or ref the replica lacks or holds elsewhere
   */
  public record Result(int checked, List<String> problems) {
    public Result {
      problems = List.copyOf(problems);
    }
  }

  public static Result compare(TableMetadata source, TableMetadata replica, ReplicaState state) {
    Set<Long> held = new HashSet<>();
    replica.snapshots().forEach(s -> held.add(s.snapshotId()));
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Snapshot snapshot : source.snapshots()) {
      checked++;
      long id = snapshot.snapshotId();
      if (!held.contains(id) && !state.expiredSnapshotIds().contains(id)) {
        problems.add(
            "snapshot "
                + id
                + ": the source holds it (sequence number "
                + snapshot.sequenceNumber()
                + "), the replica does not and did not expire it");
      }
    }
    Map<String, Long> replicaRefs = replica.refs();
    for (Map.Entry<String, Long> ref : source.refs().entrySet()) {
      checked++;
      String name = ref.getKey();
      long target = ref.getValue();
      Long onReplica = replicaRefs.get(name);
      if (onReplica == null) {
        if (!Long.valueOf(target).equals(state.droppedRefs().get(name))) {
          problems.add(
              "ref "
                  + name
                  + ": points at snapshot "
                  + target
                  + " on the source, the replica has no such ref");
        }
      } else if (onReplica != target) {
        problems.add(
            "ref "
                + name
                + ": points at snapshot "
                + onReplica
                + " on the replica, at "
                + target
                + " on the source");
      }
    }
    return new Result(checked, problems);
  }
}
