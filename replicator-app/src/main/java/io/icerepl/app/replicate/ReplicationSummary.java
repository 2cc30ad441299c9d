package io.icerepl.app.replicate;

import java.util.List;

/**
 * What one replication did.
 *
 * @param versionsApplied source metadata versions committed to the replica
 * @param snapshotsAdded snapshots the replica did not hold before
 * @param filesCopied files copied byte for byte
 * @param bytesCopied their bytes
 * @param filesRewritten files rewritten with replica paths (manifests, lists, delete files)
 * @param replicaMetadataFiles replica metadata files written, in order
 * @param skippedVersions source versions that could not be completed (their files were gone)
 *     and were folded into a later one
 * @param lostSnapshots snapshots of skipped versions that no later version holds
 */
public record ReplicationSummary(
    int versionsApplied,
    int snapshotsAdded,
    long filesCopied,
    long bytesCopied,
    long filesRewritten,
    List<String> replicaMetadataFiles,
    List<String> skippedVersions,
    List<Long> lostSnapshots) {

  public ReplicationSummary {
    replicaMetadataFiles = List.copyOf(replicaMetadataFiles);
    skippedVersions = List.copyOf(skippedVersions);
    lostSnapshots = List.copyOf(lostSnapshots);
  }
}
