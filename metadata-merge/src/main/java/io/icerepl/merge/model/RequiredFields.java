package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import java.util.List;

/**
 * The fields the spec requires of table metadata for its {@code format-version}, checked once where
 * a file is read, so every later reader may take them as present. The first field missing is named,
 * with where it was missing ({@code refs}, {@code statistics}, a log entry), so an operator can
 * find it in the file.
 */
final class RequiredFields {
  /** The field that marks a view's metadata (the view spec), which a table's never has. */
  private static final String VIEW_UUID = "view-uuid";

  private static final int MIN_FORMAT_VERSION = 1;
  private static final int MAX_FORMAT_VERSION = 3;

  private final String fileName;

  private RequiredFields(String fileName) {
    this.fileName = fileName;
  }

  /**
   * Returns {@code metadata} once its fields are checked, or throws naming the first problem.
   *
   * @param snapshotProblem the first snapshot that could not be read, reported after the top-level
   *     fields, as a whole-tree validation would; null when every snapshot was read
   */
  static TableMetadata check(TableMetadata metadata, String snapshotProblem, String fileName) {
    ObjectNode json = metadata.fields();
    RequiredFields required = new RequiredFields(fileName);
    required.notAView(json);
    required.topLevel(json, required.formatVersion(json));
    required.versionedListIds(json);
    if (snapshotProblem != null) {
      throw required.problem(snapshotProblem);
    }
    required.logEntries(json);
    required.refs(json);
    required.statistics(json);
    // Every walk of parents relies on this: a history that loops is refused here, once.
    SnapshotGraph.problemIn(metadata)
        .ifPresent(
            problem -> {
              throw required.problem(problem);
            });
    return metadata;
  }

  /** A catalog keeps a view's metadata as a table's, in its own metadata/ folder: name it so. */
  private void notAView(ObjectNode json) {
    if (json.has(VIEW_UUID) && !json.has(TABLE_UUID)) {
      throw problem(
          "it is an Iceberg view's metadata (view-uuid "
              + json.get(VIEW_UUID).asText()
              + "), not a table's; views are not replicated");
    }
  }

  private int formatVersion(ObjectNode json) {
    JsonNode version = value(json, FORMAT_VERSION, "");
    if (!version.canConvertToInt()
        || version.asInt() < MIN_FORMAT_VERSION
        || version.asInt() > MAX_FORMAT_VERSION) {
      throw problem("unsupported format-version " + version + " (supported: 1, 2, 3)");
    }
    return version.asInt();
  }

  private void topLevel(ObjectNode json, int formatVersion) {
    text(json, LOCATION, "");
    value(json, LAST_UPDATED_MS, "");
    value(json, LAST_COLUMN_ID, "");
    if (formatVersion >= 2) {
      text(json, TABLE_UUID, "");
      value(json, LAST_SEQUENCE_NUMBER, "");
      array(json, SCHEMAS, "");
      value(json, CURRENT_SCHEMA_ID, "");
      array(json, PARTITION_SPECS, "");
      value(json, DEFAULT_SPEC_ID, "");
      value(json, LAST_PARTITION_ID, "");
      array(json, SORT_ORDERS, "");
      value(json, DEFAULT_SORT_ORDER_ID, "");
    } else {
      // v1 may carry the single form, the list form or both
      if (!json.has(SCHEMA) && !json.has(SCHEMAS)) {
        value(json, SCHEMA, "");
      }
      if (!json.has(PARTITION_SPEC) && !json.has(PARTITION_SPECS)) {
        value(json, PARTITION_SPEC, "");
      }
    }
    if (formatVersion >= 3) {
      value(json, NEXT_ROW_ID, "");
    }
  }

  private void versionedListIds(ObjectNode json) {
    for (JsonNode schema : entries(json, SCHEMAS)) {
      value(schema, SCHEMA_ID, " in a schema");
    }
    for (JsonNode spec : entries(json, PARTITION_SPECS)) {
      value(spec, SPEC_ID, " in a partition spec");
    }
    for (JsonNode order : entries(json, SORT_ORDERS)) {
      value(order, ORDER_ID, " in a sort order");
    }
  }

  /** Entries held compactly have both fields by construction: only those held as a tree. */
  private void logEntries(ObjectNode json) {
    for (JsonNode entry : entries(json, SNAPSHOT_LOG)) {
      value(entry, TIMESTAMP_MS, " in a snapshot-log entry");
      value(entry, SNAPSHOT_ID, " in a snapshot-log entry");
    }
    for (JsonNode entry : entries(json, METADATA_LOG)) {
      value(entry, TIMESTAMP_MS, " in a metadata-log entry");
      text(entry, METADATA_FILE, " in a metadata-log entry");
    }
  }

  private void refs(ObjectNode json) {
    JsonNode refs = json.get(REFS);
    if (refs != null && refs.isObject()) {
      refs.fields()
          .forEachRemaining(
              e -> {
                value(e.getValue(), SNAPSHOT_ID, " in ref '" + e.getKey() + "'");
                text(e.getValue(), REF_TYPE, " in ref '" + e.getKey() + "'");
              });
    }
  }

  private void statistics(ObjectNode json) {
    for (String field : new String[] {STATISTICS, PARTITION_STATISTICS}) {
      for (JsonNode entry : entries(json, field)) {
        value(entry, SNAPSHOT_ID, " in a " + field + " entry");
        text(entry, STATISTICS_PATH, " in a " + field + " entry");
      }
    }
  }

  private JsonNode value(JsonNode object, String field, String where) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      throw problem("missing required field '" + field + "'" + where);
    }
    return value;
  }

  private void text(JsonNode object, String field, String where) {
    if (!value(object, field, where).isTextual()) {
      throw problem("field '" + field + "'" + where + " must be a string");
    }
  }

  private void array(JsonNode object, String field, String where) {
    if (!value(object, field, where).isArray()) {
      throw problem("field '" + field + "'" + where + " must be an array");
    }
  }

  private BadInputException problem(String problem) {
    return new BadInputException("Cannot read table metadata " + fileName + ": " + problem);
  }

  private static Iterable<JsonNode> entries(JsonNode json, String field) {
    JsonNode node = json.get(field);
    return node != null && node.isArray() ? node : List.of();
  }
}
