package io.icerepl.app.engine.catalog;

import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;

/**
 * The changes that carry a REST catalog's entry from the replica version it holds to a newer one,
 * as Iceberg's metadata builder records them: the catalog applies the same list to its own current
 * metadata, checking the requirements Iceberg's client derives from it. Pure: no I/O.
 */
final class RestChanges {
  private RestChanges() {}

  /**
   * Snapshots are added in sequence-number order, the order the builder accepts. Main moves once
   * per commit: Iceberg drops the snapshot-log entries of snapshots a single commit makes current
   * only in passing, so the entry is moved one replica version at a time.
   *
   * @param entry the catalog's current metadata, equal in content to a replica version
   * @param next the replica version after it
   * @return {@code entry} with the changes toward {@code next} ({@link TableMetadata#changes()})
   */
  static TableMetadata toward(TableMetadata entry, TableMetadata next) {
    TableMetadata.Builder builder = TableMetadata.buildFrom(entry);
    if (next.formatVersion() > entry.formatVersion()) {
      builder.upgradeFormatVersion(next.formatVersion());
    }
    next.schemas().stream()
        .filter(s -> !entry.schemasById().containsKey(s.schemaId()))
        .sorted(Comparator.comparingInt(Schema::schemaId))
        .forEach(builder::addSchema);
    builder.setCurrentSchema(next.currentSchemaId());
    next.specs().stream()
        .filter(s -> !entry.specsById().containsKey(s.specId()))
        .sorted(Comparator.comparingInt(PartitionSpec::specId))
        .forEach(builder::addPartitionSpec);
    builder.setDefaultPartitionSpec(next.defaultSpecId());
    next.sortOrders().stream()
        .filter(o -> !entry.sortOrdersById().containsKey(o.orderId()))
        .sorted(Comparator.comparingInt(SortOrder::orderId))
        .forEach(builder::addSortOrder);
    builder.setDefaultSortOrder(next.defaultSortOrderId());

    next.snapshots().stream()
        .filter(s -> entry.snapshot(s.snapshotId()) == null)
        .sorted(
            Comparator.comparingLong(Snapshot::sequenceNumber)
                .thenComparingLong(Snapshot::timestampMillis))
        .forEach(builder::addSnapshot);

    next.refs().forEach(builder::setRef);
    entry.refs().keySet().stream()
        .filter(name -> !next.refs().containsKey(name))
        .forEach(builder::removeRef);
    Set<Long> kept =
        next.snapshots().stream().map(Snapshot::snapshotId).collect(Collectors.toSet());
    List<Long> removed =
        entry.snapshots().stream()
            .map(Snapshot::snapshotId)
            .filter(id -> !kept.contains(id))
            .toList();
    if (!removed.isEmpty()) {
      builder.removeSnapshots(removed);
    }

    setStatistics(builder, entry, next);
    Map<String, String> properties = new LinkedHashMap<>();
    next.properties()
        .forEach(
            (key, value) -> {
              if (!value.equals(entry.properties().get(key))) {
                properties.put(key, value);
              }
            });
    if (!properties.isEmpty()) {
      builder.setProperties(properties);
    }
    Set<String> gone = new HashSet<>(entry.properties().keySet());
    gone.removeAll(next.properties().keySet());
    if (!gone.isEmpty()) {
      builder.removeProperties(gone);
    }
    return builder.build();
  }

  private static void setStatistics(
      TableMetadata.Builder builder, TableMetadata entry, TableMetadata next) {
    Map<Long, StatisticsFile> had =
        entry.statisticsFiles().stream()
            .collect(Collectors.toMap(StatisticsFile::snapshotId, f -> f, (a, b) -> b));
    Set<Long> wanted = new HashSet<>();
    for (StatisticsFile file : next.statisticsFiles()) {
      wanted.add(file.snapshotId());
      if (had.get(file.snapshotId()) == null
          || !had.get(file.snapshotId()).path().equals(file.path())) {
        builder.setStatistics(file);
      }
    }
    had.keySet().stream().filter(id -> !wanted.contains(id)).forEach(builder::removeStatistics);

    Map<Long, PartitionStatisticsFile> hadPartition =
        entry.partitionStatisticsFiles().stream()
            .collect(Collectors.toMap(PartitionStatisticsFile::snapshotId, f -> f, (a, b) -> b));
    Set<Long> wantedPartition = new HashSet<>();
    for (PartitionStatisticsFile file : next.partitionStatisticsFiles()) {
      wantedPartition.add(file.snapshotId());
      if (hadPartition.get(file.snapshotId()) == null
          || !hadPartition.get(file.snapshotId()).path().equals(file.path())) {
        builder.setPartitionStatistics(file);
      }
    }
    hadPartition.keySet().stream()
        .filter(id -> !wantedPartition.contains(id))
        .forEach(builder::removePartitionStatistics);
  }
}
