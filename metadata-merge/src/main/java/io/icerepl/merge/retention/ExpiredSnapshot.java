package io.icerepl.merge.retention;

import java.util.List;

/**
 * The files an expired snapshot named directly: what reachability starts from. Kept in the
 * replica's state until its unreachable files are deleted, so a rerun after a crash can finish.
 *
 * @param snapshotId the snapshot
 * @param manifestList its manifest list, or null for a v1 snapshot with {@code manifests}
 * @param manifests the v1 {@code manifests}, empty otherwise
 * @param statisticsFiles its statistics and partition statistics files
 */
public record ExpiredSnapshot(
    long snapshotId, String manifestList, List<String> manifests, List<String> statisticsFiles) {
  public ExpiredSnapshot {
    manifests = List.copyOf(manifests);
    statisticsFiles = List.copyOf(statisticsFiles);
  }
}
