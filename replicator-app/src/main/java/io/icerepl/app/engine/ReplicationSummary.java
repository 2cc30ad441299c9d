package io.icerepl.app.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one replication did.
 *
 * @param versionsApplied source metadata versions committed to the replica
 * @param snapshotsAdded snapshots the replica did not hold before
 * @param filesCopied files copied byte for byte
 * @param bytesCopied their bytes
 * @param filesRewritten files rewritten with replica paths (manifests, lists, delete files)
 * @param replicaMetadataFiles replica metadata files written, in order
 * @param skippedVersions source versions that could not be completed (their files were gone) and
 *     were folded into a later one
 * @param lostSnapshots snapshots of skipped versions that no later version holds
 * @param settlesIn when a newer source metadata file, passed over as too young to trust, is old
 *     enough to replicate; empty when there is none
 */
public record ReplicationSummary(
    int versionsApplied,
    int snapshotsAdded,
    long filesCopied,
    long bytesCopied,
    long filesRewritten,
    List<String> replicaMetadataFiles,
    List<String> skippedVersions,
    List<Long> lostSnapshots,
    Optional<Duration> settlesIn) {

  public ReplicationSummary {
    replicaMetadataFiles = List.copyOf(replicaMetadataFiles);
    skippedVersions = List.copyOf(skippedVersions);
    lostSnapshots = List.copyOf(lostSnapshots);
  }

  /** A run that found nothing to do. */
  public static ReplicationSummary none() {
    return new ReplicationSummary(0, 0, 0, 0, 0, List.of(), List.of(), List.of(), Optional.empty());
  }
}
