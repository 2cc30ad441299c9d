package io.icerepl.merge.retention;

import static io.icerepl.merge.model.TableMetadataFields.PARTITION_STATISTICS;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_ID;
import static io.icerepl.merge.model.TableMetadataFields.STATISTICS;
import static io.icerepl.merge.model.TableMetadataFields.STATISTICS_PATH;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.model.TableMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code statistics} and {@code partition-statistics} files table metadata names. Both kinds
 * are files of one snapshot that no manifest names, so reachability sees them only here.
 */
final class StatisticsFiles {
  private StatisticsFiles() {}

  /** Each snapshot's statistics paths, statistics before partition statistics, each path once. */
  static Map<Long, List<String>> bySnapshot(TableMetadata metadata) {
    Map<Long, Set<String>> paths = new LinkedHashMap<>();
    for (String field : List.of(STATISTICS, PARTITION_STATISTICS)) {
      for (JsonNode entry : entries(metadata, field)) {
        paths
            .computeIfAbsent(snapshotId(entry, field), id -> new LinkedHashSet<>())
            .add(path(entry, field));
      }
    }
    Map<Long, List<String>> result = new LinkedHashMap<>();
    paths.forEach((id, set) -> result.put(id, List.copyOf(set)));
    return result;
  }

  /** Every statistics path the metadata names, whichever snapshot it belongs to. */
  static Set<String> all(TableMetadata metadata) {
    Set<String> paths = new LinkedHashSet<>();
    for (String field : List.of(STATISTICS, PARTITION_STATISTICS)) {
      for (JsonNode entry : entries(metadata, field)) {
        paths.add(path(entry, field));
      }
    }
    return paths;
  }

  private static List<JsonNode> entries(TableMetadata metadata, String field) {
    JsonNode node = metadata.field(field);
    List<JsonNode> entries = new ArrayList<>();
    if (node == null || node.isNull()) {
      return entries;
    }
    if (!node.isArray()) {
      throw new BadInputException("Cannot read " + field + ": it is not an array");
    }
    node.forEach(entries::add);
    return entries;
  }

  private static long snapshotId(JsonNode entry, String field) {
    JsonNode id = entry.get(SNAPSHOT_ID);
    if (id == null || !id.canConvertToLong()) {
      throw new BadInputException(
          "Cannot read " + field + " entry: it has no numeric " + SNAPSHOT_ID);
    }
    return id.asLong();
  }

  private static String path(JsonNode entry, String field) {
    JsonNode path = entry.get(STATISTICS_PATH);
    // A missing path would silently protect nothing and delete nothing; refuse it instead.
    if (path == null || !path.isTextual() || path.asText().isEmpty()) {
      throw new BadInputException("Cannot read " + field + " entry: it has no " + STATISTICS_PATH);
    }
    return path.asText();
  }
}
