package io.icerepl.merge.merge;

import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.model.TableMetadata;
import java.util.List;

/**
 * The outcome of a merge: the new replica metadata and what must be in place before it is
 * published.
 *
 * @param metadata the new replica metadata
 * @param addedSnapshots snapshots the replica did not hold, in source order, with their source and
 *     replica manifest list (or v1 manifests)
 * @param statisticsFiles statistics and partition statistics files of kept snapshots, copied byte
 *     for byte
 */
public record MergeResult(
    TableMetadata metadata, List<AddedSnapshot> addedSnapshots, List<FileCopy> statisticsFiles) {

  public MergeResult {
    addedSnapshots = List.copyOf(addedSnapshots);
    statisticsFiles = List.copyOf(statisticsFiles);
  }

  /**
   * A snapshot new to the replica.
   *
   * @param snapshotId its id
   * @param parentSnapshotId its parent, or null
   * @param sourceManifestList the source manifest list, or null for a v1 snapshot with manifests
   * @param sourceManifests the v1 manifests field, empty when there is a manifest list
   */
  public record AddedSnapshot(
      long snapshotId,
      Long parentSnapshotId,
      String sourceManifestList,
      List<String> sourceManifests) {
    public AddedSnapshot {
      sourceManifests = List.copyOf(sourceManifests);
    }
  }
}
