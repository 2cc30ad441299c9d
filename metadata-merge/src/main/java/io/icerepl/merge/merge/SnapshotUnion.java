package io.icerepl.merge.merge;

import static io.icerepl.merge.model.TableMetadataFields.*;

import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The merged {@code snapshots}: the replica's in their order, then the source's new ones in theirs,
 * indexed by {@code snapshot-id}. One list and one primitive index, since a backfill of a long
 * history adds every snapshot. A snapshot both hold must be the same one: snapshots are immutable,
 * so a difference means the id was reused or the replica diverged, never an update.
 *
 * @param list the merged snapshots
 * @param ids each snapshot's position in {@code list}
 * @param added the source's snapshots new to the replica, in source order
 */
record SnapshotUnion(
    List<Snapshot> list, SnapshotIdIndex ids, List<MergeResult.AddedSnapshot> added) {

  /**
   * @param protectedIds snapshots the merged refs name, added even when the replica's retention
   *     expired them
   */
  static SnapshotUnion of(MergeRequest request, TableMetadata replica, Set<Long> protectedIds) {
    PathMapping mapping = request.mapping();
    List<Snapshot> sourceSnapshots = request.source().snapshots();
    List<Snapshot> replicaSnapshots = replica == null ? List.of() : replica.snapshots();
    List<Snapshot> list = new ArrayList<>(replicaSnapshots.size() + sourceSnapshots.size());
    SnapshotIdIndex byId = new SnapshotIdIndex(replicaSnapshots.size() + sourceSnapshots.size());
    for (Snapshot snapshot : replicaSnapshots) {
      int held = byId.putIfAbsent(snapshot.snapshotId(), list.size());
      if (held < 0) {
        list.add(snapshot);
      } else {
        list.set(held, snapshot); // a repeated id keeps its first place and its last entry
      }
    }
    List<MergeResult.AddedSnapshot> added = new ArrayList<>();
    for (Snapshot snapshot : sourceSnapshots) {
      long id = snapshot.snapshotId();
      int held = byId.position(id);
      if (held >= 0) {
        checkSameSnapshot(list.get(held), snapshot, mapping, request.sourceMetadataFile());
        continue;
      }
      if (request.expiredSnapshotIds().contains(id) && !protectedIds.contains(id)) {
        continue; // expired by the replica's own retention: its files are gone
      }
      byId.putIfAbsent(id, list.size());
      list.add(snapshot.withManifestPaths(mapping));
      added.add(new MergeResult.AddedSnapshot(snapshot));
    }
    return new SnapshotUnion(list, byId, added);
  }

  /**
   * Snapshots are immutable: one the replica holds must be the source's, compared on the fields
   * that decide what it reads. Compared on the compact entries: history is long and most snapshots
   * are old.
   */
  private static void checkSameSnapshot(
      Snapshot replica, Snapshot source, PathMapping mapping, String sourceFile) {
    long id = source.snapshotId();
    // an absent sequence-number is 0, which Iceberg omits and other writers spell out
    requireSame(id, sourceFile, SEQUENCE_NUMBER, replica.sequenceNumber(), source.sequenceNumber());
    requireSame(id, sourceFile, TIMESTAMP_MS, replica.timestampMs(), source.timestampMs());
    if (!replica.parentSnapshotId().equals(source.parentSnapshotId())) {
      throw differentSnapshot(
          id,
          sourceFile,
          PARENT_SNAPSHOT_ID,
          replica.parentSnapshotId().orElse(null),
          source.parentSnapshotId().orElse(null));
    }
    if (replica.hasManifestListOf(source, mapping)) {
      return; // the usual case, known from the entries' bytes: most of a history is unchanged
    }
    String replicaList = replica.manifestList().orElse(null);
    String sourceList = source.manifestList().map(mapping::map).orElse(null);
    // one file may be spelled file:/p by one writer and file:///p by another (a fail-back maps
    // the promoted table's paths onto the original's own)
    if (replicaList == null || sourceList == null
        ? replicaList != sourceList
        : !PathMapping.sameFile(replicaList, sourceList)) {
      throw differentSnapshot(id, sourceFile, MANIFEST_LIST, replicaList, sourceList);
    }
  }

  /** Compared unboxed: a long history holds this check once for each snapshot both hold. */
  private static void requireSame(
      long id, String sourceFile, String field, long replica, long source) {
    if (replica != source) {
      throw differentSnapshot(id, sourceFile, field, replica, source);
    }
  }

  private static ConflictException differentSnapshot(
      long id, String sourceFile, String field, Object replica, Object source) {
    return new ConflictException(
        "Cannot merge snapshot "
            + id
            + " of table metadata "
            + sourceFile
            + ": the replica "
            + "holds a different snapshot with the same snapshot-id ("
            + field
            + " "
            + replica
            + " vs "
            + source
            + ")");
  }
}
