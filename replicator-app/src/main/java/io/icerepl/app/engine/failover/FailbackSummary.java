package io.icerepl.app.engine.failover;

import java.util.List;
import java.util.Map;

/**
 * What one fail-back run did.
 *
 * @param originalLocation the original location, now a replica of the promoted table
 * @param replicaMetadataFiles the metadata files it published there, in order
 * @param snapshotsAdded snapshots of the promoted table the original did not hold before
 * @param filesCopied files copied byte for byte from the promoted table
 * @param bytesCopied their bytes
 * @param orphanSnapshotIds the snapshots only the old source holds, kept
 * @param orphanTags the tags that keep them readable: name → snapshot id
 */
public record FailbackSummary(
    String originalLocation,
    List<String> replicaMetadataFiles,
    int snapshotsAdded,
    long filesCopied,
    long bytesCopied,
    List<Long> orphanSnapshotIds,
    Map<String, Long> orphanTags) {

  public FailbackSummary {
    replicaMetadataFiles = List.copyOf(replicaMetadataFiles);
    orphanSnapshotIds = List.copyOf(orphanSnapshotIds);
    orphanTags = Map.copyOf(orphanTags);
  }
}
