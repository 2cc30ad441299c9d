package io.icerepl.app.engine.retention;

import io.icerepl.merge.retention.DroppedRef;
import io.icerepl.merge.retention.UnreachableFiles;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one expiry did (or, with {@code dryRun}, would do): ClickHouse's {@code expire_snapshots}
 * metrics, plus the snapshots expired and refs dropped.
 */
public record RetentionResult(
    UnreachableFiles deleted,
    boolean dryRun,
    boolean filesKept,
    List<Long> expiredSnapshotIds,
    List<DroppedRef> droppedRefs,
    List<String> warnings,
    String replicaMetadataFile) {

  public RetentionResult {
    expiredSnapshotIds = List.copyOf(expiredSnapshotIds);
    droppedRefs = List.copyOf(droppedRefs);
    warnings = List.copyOf(warnings);
  }

  /** The metrics by name, in ClickHouse's order. */
  public Map<String, Object> metrics() {
    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("deleted_data_files_count", deleted.dataFiles().size());
    metrics.put("deleted_position_delete_files_count", deleted.positionDeleteFiles().size());
    metrics.put("deleted_equality_delete_files_count", deleted.equalityDeleteFiles().size());
    metrics.put("deleted_manifest_files_count", deleted.manifests().size());
    metrics.put("deleted_manifest_lists_count", deleted.manifestLists().size());
    metrics.put("deleted_statistics_files_count", deleted.statisticsFiles().size());
    metrics.put("dry_run", dryRun);
    metrics.put("expired_snapshots_count", expiredSnapshotIds.size());
    metrics.put("dropped_refs_count", droppedRefs.size());
    return metrics;
  }
}
