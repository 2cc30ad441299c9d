package io.icerepl.merge.merge;

import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.model.Snapshot;
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
   * A snapshot new to the replica: its source entry, read through (a backfill adds every snapshot
   * of the history, so nothing is copied out of the entries).
   *
   * @param source the source's snapshot entry, its paths not mapped
   */
  public record AddedSnapshot(Snapshot source) {
    public long snapshotId() {
      return source.snapshotId();
    }

    /** Its parent, or null. */
    public Long parentSnapshotId() {
      return source.parentSnapshotId().orElse(null);
    }

    /** The source manifest list, or null for a v1 snapshot with manifests. */
    public String sourceManifestList() {
      return source.manifestList().orElse(null);
    }

    /** The v1 manifests field, empty when there is a manifest list. */
    public List<String> sourceManifests() {
      return source.manifests();
    }
  }
}
