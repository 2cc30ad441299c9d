package io.icerepl.app.engine;

import io.icerepl.merge.path.PathMapping;
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
 * @param inferredMirror the mirror mapping this run inferred and recorded for files no metadata
 *     version declares a prefix for (see {@link io.icerepl.merge.path.MirrorMapping}); empty when
 *     it inferred none
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
    Optional<Duration> settlesIn,
    List<PathMapping.Prefix> inferredMirror) {

  public ReplicationSummary {
    replicaMetadataFiles = List.copyOf(replicaMetadataFiles);
    skippedVersions = List.copyOf(skippedVersions);
    lostSnapshots = List.copyOf(lostSnapshots);
    inferredMirror = List.copyOf(inferredMirror);
  }

  /** A run that inferred no mirror mapping. */
  public ReplicationSummary(
      int versionsApplied,
      int snapshotsAdded,
      long filesCopied,
      long bytesCopied,
      long filesRewritten,
      List<String> replicaMetadataFiles,
      List<String> skippedVersions,
      List<Long> lostSnapshots,
      Optional<Duration> settlesIn) {
    this(
        versionsApplied,
        snapshotsAdded,
        filesCopied,
        bytesCopied,
        filesRewritten,
        replicaMetadataFiles,
        skippedVersions,
        lostSnapshots,
        settlesIn,
        List.of());
  }

  /** The same, with the mirror mapping the run inferred. */
  public ReplicationSummary withInferredMirror(List<PathMapping.Prefix> mirror) {
    return new ReplicationSummary(
        versionsApplied,
        snapshotsAdded,
        filesCopied,
        bytesCopied,
        filesRewritten,
        replicaMetadataFiles,
        skippedVersions,
        lostSnapshots,
        settlesIn,
        mirror);
  }

  /** A run that found nothing to do. */
  public static ReplicationSummary none() {
    return new ReplicationSummary(0, 0, 0, 0, 0, List.of(), List.of(), List.of(), Optional.empty());
  }
}
