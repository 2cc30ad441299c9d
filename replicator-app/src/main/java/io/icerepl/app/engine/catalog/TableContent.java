package io.icerepl.app.engine.catalog;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;

/**
 * What a reader of a table sees, apart from where its metadata file is and the catalog's own {@code
 * metadata-log} and {@code snapshot-log} timestamps: two metadata files with equal content answer
 * every query alike. A REST catalog writes its own file for each commit, so its entry is compared
 * with a replica version by content.
 */
record TableContent(
    int formatVersion,
    String tableUuid,
    Set<Long> snapshots,
    Map<String, SnapshotRef> refs,
    Set<Integer> schemas,
    int currentSchemaId,
    Set<Integer> specs,
    int defaultSpecId,
    Set<Integer> sortOrders,
    int defaultSortOrderId,
    Map<String, String> properties,
    Set<String> statistics) {

  static TableContent of(TableMetadata metadata) {
    Set<Long> snapshots = new TreeSet<>();
    metadata.snapshots().stream().map(Snapshot::snapshotId).forEach(snapshots::add);
    Set<String> statistics = new TreeSet<>();
    for (StatisticsFile file : metadata.statisticsFiles()) {
      statistics.add(file.snapshotId() + " " + file.path());
    }
    for (PartitionStatisticsFile file : metadata.partitionStatisticsFiles()) {
      statistics.add(file.snapshotId() + " partition " + file.path());
    }
    return new TableContent(
        metadata.formatVersion(),
        metadata.uuid(),
        snapshots,
        new TreeMap<>(metadata.refs()),
        new TreeSet<>(metadata.schemasById().keySet()),
        metadata.currentSchemaId(),
        new TreeSet<>(metadata.specsById().keySet()),
        metadata.defaultSpecId(),
        new TreeSet<>(metadata.sortOrdersById().keySet()),
        metadata.defaultSortOrderId(),
        new TreeMap<>(metadata.properties()),
        statistics);
  }

  /** The names of the fields in which {@code other} differs, for error messages. */
  List<String> differences(TableContent other) {
    List<String> names = new ArrayList<>();
    for (RecordComponent component : TableContent.class.getRecordComponents()) {
      try {
        if (!Objects.equals(
            component.getAccessor().invoke(this), component.getAccessor().invoke(other))) {
          names.add(component.getName());
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return names;
  }
}
