package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.icerepl.merge.model.TableMetadata.LogEntry;
import io.icerepl.merge.model.TableMetadata.SnapshotLogEntry;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;

/**
 * Reads {@code snapshot-log} and {@code metadata-log}, which grow with every commit, as compact
 * entries rather than trees: a long-lived table's logs would otherwise take a tree node per field
 * per entry. An entry with anything but the spec's two fields keeps the whole log a tree, so no
 * field is lost.
 */
final class CompactLogs {
  private CompactLogs() {}

  /**
   * Reads the {@code snapshot-log} array at the parser's current token.
   *
   * @param compact receives the entries when held compactly
   * @return {@link TableMetadata#COMPACT}, or the log as a tree
   */
  static JsonNode readSnapshotLog(
      ObjectMapper mapper, JsonParser parser, List<SnapshotLogEntry> compact) throws IOException {
    return read(mapper, parser, compact, CompactLogs::snapshotLogEntry);
  }

  /** As {@link #readSnapshotLog}, for the {@code metadata-log} array. */
  static JsonNode readMetadataLog(ObjectMapper mapper, JsonParser parser, List<LogEntry> compact)
      throws IOException {
    return read(mapper, parser, compact, CompactLogs::metadataLogEntry);
  }

  /**
   * Reads a log array: compactly while every entry holds exactly the spec's two fields, else as the
   * tree it is (an entry with more fields keeps them).
   */
  private static <T> JsonNode read(
      ObjectMapper mapper, JsonParser parser, List<T> compact, Function<JsonNode, T> entryOf)
      throws IOException {
    ArrayNode tree = null;
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      JsonNode node = mapper.readTree(parser);
      T entry = tree == null ? entryOf.apply(node) : null;
      if (entry != null) {
        compact.add(entry);
        continue;
      }
      if (tree == null) {
        tree = mapper.createArrayNode();
        for (T held : compact) {
          tree.add(
              held instanceof LogEntry log ? log.toJson() : ((SnapshotLogEntry) held).toJson());
        }
        compact.clear();
      }
      tree.add(node);
    }
    return tree == null ? TableMetadata.COMPACT : tree;
  }

  private static SnapshotLogEntry snapshotLogEntry(JsonNode node) {
    return node.size() == 2 && isLong(node.get(TIMESTAMP_MS)) && isLong(node.get(SNAPSHOT_ID))
        ? new SnapshotLogEntry(node.get(TIMESTAMP_MS).asLong(), node.get(SNAPSHOT_ID).asLong())
        : null;
  }

  private static LogEntry metadataLogEntry(JsonNode node) {
    JsonNode file = node.get(METADATA_FILE);
    return node.size() == 2 && isLong(node.get(TIMESTAMP_MS)) && file != null && file.isTextual()
        ? new LogEntry(node.get(TIMESTAMP_MS).asLong(), file.asText())
        : null;
  }

  private static boolean isLong(JsonNode node) {
    return node != null && node.isIntegralNumber() && node.canConvertToLong();
  }
}
