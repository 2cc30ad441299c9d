package io.icerepl.app.engine.retention;

import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.retention.ExpiredSnapshot;
import io.icerepl.merge.retention.ReachabilityPlanner;
import io.icerepl.merge.retention.UnreachableFiles;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes the deletion an interrupted expiry left pending: recomputes what its expired snapshots
 * alone reach against the replica's current metadata, deletes that (contents, then manifests, then
 * manifest lists) and forgets the pending deletion.
 *
 * <p>Both expiry and replication finish it first, under the table's lock. A half-done deletion
 * leaves manifest lists and manifests whose contents are gone, and replication takes a manifest
 * list or manifest present on the replica as proof that what it names is in place; once the
 * deletion is finished, every file still there is whole again, and a snapshot the source brings
 * back is copied anew.
 */
public final class PendingDeletion {
  private static final Logger LOG = LoggerFactory.getLogger(PendingDeletion.class);

  private final ObjectStore target;
  private final int batchSize;

  /**
   * @param target the replicas' store, whose manifests are read
   * @param batchSize candidate files checked per pass over retained manifests (bounds memory)
   */
  public PendingDeletion(ObjectStore target, int batchSize) {
    this.target = target;
    this.batchSize = batchSize;
  }

  /**
   * Finishes the pending deletion recorded in {@code state}, if any.
   *
   * @param replica the replica, under its lease
   * @param current the replica's current metadata
   * @param state the replica's state
   * @return the state with no pending deletion
   */
  public ReplicaState finish(LeasedReplica replica, TableMetadata current, ReplicaState state)
      throws IOException {
    if (state.pendingDeletes().isEmpty()) {
      return state;
    }
    Set<Long> held = new HashSet<>();
    current.snapshots().forEach(s -> held.add(s.snapshotId()));
    // an expiry that stopped before publishing left its snapshots in the metadata: nothing of
    // theirs was deleted, and they are retained
    List<ExpiredSnapshot> stillExpired =
        state.pendingDeletes().stream().filter(s -> !held.contains(s.snapshotId())).toList();
    UnreachableFiles orphans =
        ReachabilityPlanner.unreachableAfterInterruptedDelete(
            stillExpired, current, target::open, batchSize);
    LOG.info(
        "{}: finishing an earlier expiry: deleting {} orphaned file(s)",
        replica.location(),
        orphans.all().size());
    new FileDeletion(DeletionProgress.Listener.NONE).delete(replica, orphans);
    ReplicaState finished =
        state.withRetention(state.expiredSnapshotIds(), state.droppedRefs(), List.of());
    replica.writeState(finished, "forget the finished deletion");
    return finished;
  }

  /**
   * Remembers, before a replica commit is published, the statistics files it stops naming (the
   * source replaced or removed them), so the replica's retention deletes them.
   *
   * @param replica the replica, under its lease
   * @param state the replica's state, as the run holding the lease read and wrote it
   * @param before the replica's current version, if any
   * @param after the metadata about to be published
   * @return the state as written
   */
  public ReplicaState rememberReplacedStatistics(
      LeasedReplica replica, ReplicaState state, Optional<ReplicaHead> before, TableMetadata after)
      throws IOException {
    if (before.isEmpty()) {
      return state;
    }
    List<String> replaced =
        ReachabilityPlanner.statisticsFilesNoLongerNamed(before.get().metadata(), after);
    if (replaced.isEmpty()) {
      return state;
    }
    Set<String> remembered = new LinkedHashSet<>(state.replacedStatisticsFiles());
    remembered.addAll(replaced);
    ReplicaState written = state.withReplacedStatisticsFiles(List.copyOf(remembered));
    replica.writeState(written, "remember the statistics files no longer named");
    LOG.info(
        "{}: statistics files no longer named, for retention to delete: {}",
        replica.location(),
        replaced);
    return written;
  }
}
