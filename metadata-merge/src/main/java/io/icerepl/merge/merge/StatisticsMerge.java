package io.icerepl.merge.merge;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges {@code statistics} and {@code partition-statistics}: one entry per {@code snapshot-id} the
 * replica keeps, its {@code statistics-path} mapped, and the files of new or changed entries to
 * copy. For a snapshot the source still holds, the source's entries are the truth: present,
 * replaced or removed there, so on the replica. For a snapshot only the replica keeps (the source
 * expired it), the replica's entry stays.
 */
final class StatisticsMerge {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private StatisticsMerge() {}

  /**
   * Sets both fields in {@code out}, leaving out a field the source does not have when it would be
   * empty.
   *
   * @param held the snapshots the merged metadata holds
   * @return the statistics files to copy before the metadata is published
   */
  static List<FileCopy> merge(
      ObjectNode out,
      TableMetadata replica,
      TableMetadata source,
      SnapshotIdIndex held,
      PathMapping mapping) {
    List<FileCopy> files = new ArrayList<>();
    // only the replica's statistics entries are looked up in it: most tables have none
    SnapshotIdIndex sourceHolds =
        hasEntries(replica, STATISTICS) || hasEntries(replica, PARTITION_STATISTICS)
            ? SnapshotIdIndex.of(source.snapshots())
            : null;
    for (String field : new String[] {STATISTICS, PARTITION_STATISTICS}) {
      ArrayNode merged = merge(replica, source, field, held, sourceHolds, mapping, files);
      if (source.field(field) == null && merged.isEmpty()) {
        out.remove(field);
      } else {
        out.set(field, merged);
      }
    }
    return files;
  }

  private static ArrayNode merge(
      TableMetadata replica,
      TableMetadata source,
      String field,
      SnapshotIdIndex held,
      SnapshotIdIndex sourceHolds,
      PathMapping mapping,
      List<FileCopy> files) {
    Map<Long, JsonNode> replicaEntries = new LinkedHashMap<>();
    Map<Long, JsonNode> bySnapshot = new LinkedHashMap<>();
    if (replica != null) {
      for (JsonNode node : entries(replica, field)) {
        long snapshotId = node.get(SNAPSHOT_ID).asLong();
        replicaEntries.put(snapshotId, node);
        if (!sourceHolds.contains(snapshotId)) {
          bySnapshot.put(snapshotId, node);
        }
      }
    }
    for (JsonNode node : entries(source, field)) {
      long snapshotId = node.get(SNAPSHOT_ID).asLong();
      if (!held.contains(snapshotId)) {
        continue;
      }
      ObjectNode mapped = node.deepCopy();
      String sourcePath = node.get(STATISTICS_PATH).asText();
      String targetPath = mapping.map(sourcePath);
      mapped.put(STATISTICS_PATH, targetPath);
      bySnapshot.put(snapshotId, mapped);
      JsonNode previous = replicaEntries.get(snapshotId);
      if (previous == null || !previous.equals(mapped)) {
        JsonNode size = node.get(FILE_SIZE_IN_BYTES);
        files.add(
            FileCopy.of(
                FileKind.STATISTICS, sourcePath, targetPath, size == null ? -1 : size.asLong()));
      }
    }
    ArrayNode array = NODES.arrayNode();
    bySnapshot.entrySet().stream()
        .filter(e -> held.contains(e.getKey()))
        .forEach(e -> array.add(e.getValue()));
    return array;
  }

  private static boolean hasEntries(TableMetadata metadata, String field) {
    return metadata != null && entries(metadata, field).iterator().hasNext();
  }

  private static Iterable<JsonNode> entries(TableMetadata metadata, String field) {
    JsonNode node = metadata.field(field);
    return node == null ? List.of() : node;
  }
}
