package io.icerepl.app.engine.failover;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A fail-back as the service keeps it in the promoted table's status: where it went and the tags
 * that keep the old source's orphan commits readable.
 *
 * @param failedBackAt when the fail-back ended
 * @param originalLocation the original location, a replica of the promoted table since
 * @param orphanSnapshotIds the snapshots only the old source held, kept
 * @param orphanTags the tags that keep them readable: name → snapshot id
 */
public record FailbackReport(
    Instant failedBackAt,
    String originalLocation,
    List<Long> orphanSnapshotIds,
    Map<String, Long> orphanTags) {

  public FailbackReport {
    orphanSnapshotIds = List.copyOf(orphanSnapshotIds);
    orphanTags = Map.copyOf(orphanTags);
  }

  public static FailbackReport of(Instant failedBackAt, FailbackSummary summary) {
    return new FailbackReport(
        failedBackAt,
        summary.originalLocation(),
        summary.orphanSnapshotIds(),
        summary.orphanTags());
  }
}
