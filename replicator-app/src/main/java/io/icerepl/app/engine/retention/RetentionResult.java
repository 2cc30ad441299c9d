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

  /**
   * One metric: {@code key} names it in JSON (camelCase, as every key the replicator writes),
   * {@code icebergName} as Iceberg's {@code expire_snapshots} procedure prints it.
   */
  public record Metric(String key, String icebergName, Object value) {}

  /** The metrics in ClickHouse's order. */
  public List<Metric> metricList() {
    return List.of(
        new Metric("deletedDataFilesCount", "deleted_data_files_count", deleted.dataFiles().size()),
        new Metric(
            "deletedPositionDeleteFilesCount",
            "deleted_position_delete_files_count",
            deleted.positionDeleteFiles().size()),
        new Metric(
            "deletedEqualityDeleteFilesCount",
            "deleted_equality_delete_files_count",
            deleted.equalityDeleteFiles().size()),
        new Metric(
            "deletedManifestFilesCount",
            "deleted_manifest_files_count",
            deleted.manifests().size()),
        new Metric(
            "deletedManifestListsCount",
            "deleted_manifest_lists_count",
            deleted.manifestLists().size()),
        new Metric(
            "deletedStatisticsFilesCount",
            "deleted_statistics_files_count",
            deleted.statisticsFiles().size()),
        new Metric("dryRun", "dry_run", dryRun),
        new Metric("expiredSnapshotsCount", "expired_snapshots_count", expiredSnapshotIds.size()),
        new Metric("droppedRefsCount", "dropped_refs_count", droppedRefs.size()));
  }

  /** The metrics by their JSON key, in ClickHouse's order: the API's and the log's form. */
  public Map<String, Object> metrics() {
    Map<String, Object> metrics = new LinkedHashMap<>();
    metricList().forEach(m -> metrics.put(m.key(), m.value()));
    return metrics;
  }
}
