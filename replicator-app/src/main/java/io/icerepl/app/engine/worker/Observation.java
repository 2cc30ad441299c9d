package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.TableHeads;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Source and replica heads as read from the stores (after a run, or at start-up), and how far the
 * replica lags behind its source.
 *
 * @param sourceMetadataFile the source's current metadata file
 * @param sourceUpdatedMs its {@code last-updated-ms}
 * @param replicaMetadataFile the replica's current metadata file, null when there is none
 * @param replicatedSourceFile the source metadata file the replica was built from (the replica
 *     records its name; the path is the source's), null when there is no replica
 * @param replicatedSourceUpdatedMs that file's {@code last-updated-ms}, as the replica records it;
 *     null when unknown
 * @param inSync whether the replica was built from {@code sourceMetadataFile}
 * @param oldestUnreplicatedMs commit time of the oldest source version the replica lacks
 * @param lagSnapshots source snapshots the replica lacks
 */
public record Observation(
    String sourceMetadataFile,
    long sourceUpdatedMs,
    String replicaMetadataFile,
    String replicatedSourceFile,
    Long replicatedSourceUpdatedMs,
    boolean inSync,
    long oldestUnreplicatedMs,
    int lagSnapshots) {

  /**
   * Where source and replica stand, from the heads a run or a restore read: the lag is counted from
   * the oldest source version the replica lacks, in snapshots and in time.
   */
  static Observation of(String sourceLocation, TableHeads heads) {
    String sourceFile = heads.source().file();
    TableMetadata head = heads.sourceMetadata();
    Optional<ReplicaHead> replica = heads.replica();
    Optional<String> replicated = heads.replicatedFileName();
    Set<Long> lacking = new HashSet<>();
    head.snapshots().forEach(s -> lacking.add(s.snapshotId()));
    replica.ifPresent(
        r -> r.metadata().snapshots().stream().map(Snapshot::snapshotId).forEach(lacking::remove));
    lacking.removeAll(heads.expiredSnapshotIds());
    return new Observation(
        sourceFile,
        head.lastUpdatedMs(),
        replica.map(ReplicaHead::file).orElse(null),
        replicated.map(name -> sourcePath(head, sourceFile, sourceLocation, name)).orElse(null),
        replica.flatMap(ReplicaHead::lastSourceUpdatedMs).orElse(null),
        heads.inSync(),
        oldestUnreplicatedMs(head, sourceFile, replicated, heads.source().settlingSinceMs()),
        lacking.size());
  }

  /**
   * The source path of a metadata file the replica names (a name): the head, an entry of the head's
   * log, else a file in the source's metadata folder.
   */
  private static String sourcePath(
      TableMetadata head, String headFile, String sourceLocation, String name) {
    if (MetadataFileNames.fileName(headFile).equals(name)) {
      return headFile;
    }
    return head.metadataLog().stream()
        .map(TableMetadata.LogEntry::metadataFile)
        .filter(file -> MetadataFileNames.fileName(file).equals(name))
        .findFirst()
        .orElseGet(() -> TableLayout.join(TableLayout.metadataFolder(sourceLocation), name));
  }

  /**
   * The commit time of the first source version after the one replicated last, from the log. When
   * the replica holds the settled head itself, what it lacks is the newer file still settling,
   * written at {@code settlingSinceMs}.
   */
  static long oldestUnreplicatedMs(
      TableMetadata head,
      String headFile,
      Optional<String> replicatedFileName,
      OptionalLong settlingSinceMs) {
    if (replicatedFileName.equals(Optional.of(MetadataFileNames.fileName(headFile)))) {
      return settlingSinceMs.orElse(head.lastUpdatedMs());
    }
    List<TableMetadata.LogEntry> log = head.metadataLog();
    int next = 0;
    if (replicatedFileName.isPresent()) {
      for (int i = 0; i < log.size(); i++) {
        if (MetadataFileNames.fileName(log.get(i).metadataFile())
            .equals(replicatedFileName.get())) {
          next = i + 1;
        }
      }
    }
    return next < log.size() ? log.get(next).timestampMs() : head.lastUpdatedMs();
  }
}
