package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Table metadata as read from a metadata JSON file, kept as the JSON tree itself so that no field
 * is ever lost: fields the replicator does not know are carried as they are. Accessors read the
 * spec's fields; the tree is never modified (callers get {@link #copyOfJson()} to build new
 * metadata).
 */
public final class TableMetadata {
  private final ObjectNode json;

  TableMetadata(ObjectNode json) {
    this.json = json;
  }

  /** A deep copy of the underlying JSON, for building new metadata. */
  public ObjectNode copyOfJson() {
    return json.deepCopy();
  }

  /** The JSON tree, read-only by convention. */
  public JsonNode json() {
    return json;
  }

  public int formatVersion() {
    return json.get(FORMAT_VERSION).asInt();
  }

  public Optional<String> tableUuid() {
    return text(TABLE_UUID);
  }

  public String location() {
    return json.get(LOCATION).asText();
  }

  public long lastSequenceNumber() {
    JsonNode node = json.get(LAST_SEQUENCE_NUMBER);
    return node == null ? 0L : node.asLong();
  }

  public long lastUpdatedMs() {
    return json.get(LAST_UPDATED_MS).asLong();
  }

  /** The current snapshot id, absent for an empty table (v1 and v2 may write -1 or null). */
  public Optional<Long> currentSnapshotId() {
    JsonNode node = json.get(CURRENT_SNAPSHOT_ID);
    if (node == null || node.isNull() || node.asLong() == -1L) {
      return Optional.empty();
    }
    return Optional.of(node.asLong());
  }

  public List<Snapshot> snapshots() {
    List<Snapshot> result = new ArrayList<>();
    for (JsonNode node : array(SNAPSHOTS)) {
      result.add(new Snapshot((ObjectNode) node));
    }
    return result;
  }

  public Optional<Snapshot> snapshot(long snapshotId) {
    return snapshots().stream().filter(s -> s.snapshotId() == snapshotId).findFirst();
  }

  /** {@code metadata-log}: the previous metadata files, oldest first. */
  public List<LogEntry> metadataLog() {
    List<LogEntry> result = new ArrayList<>();
    for (JsonNode node : array(METADATA_LOG)) {
      result.add(new LogEntry(node.get(TIMESTAMP_MS).asLong(), node.get(METADATA_FILE).asText()));
    }
    return result;
  }

  /** {@code snapshot-log}: the snapshots that were current, in the order they became current. */
  public List<SnapshotLogEntry> snapshotLog() {
    List<SnapshotLogEntry> result = new ArrayList<>();
    for (JsonNode node : array(SNAPSHOT_LOG)) {
      result.add(
          new SnapshotLogEntry(node.get(TIMESTAMP_MS).asLong(), node.get(SNAPSHOT_ID).asLong()));
    }
    return result;
  }

  public Map<String, String> properties() {
    Map<String, String> result = new LinkedHashMap<>();
    JsonNode props = json.get(PROPERTIES);
    if (props != null && props.isObject()) {
      props.fields().forEachRemaining(e -> result.put(e.getKey(), e.getValue().asText()));
    }
    return result;
  }

  /** {@code refs}: name → snapshot id the ref points at. */
  public Map<String, Long> refs() {
    Map<String, Long> result = new LinkedHashMap<>();
    JsonNode refs = json.get(REFS);
    if (refs != null && refs.isObject()) {
      refs.fields()
          .forEachRemaining(e -> result.put(e.getKey(), e.getValue().get(SNAPSHOT_ID).asLong()));
    }
    return result;
  }

  public boolean hasEncryptionKeys() {
    JsonNode keys = json.get(ENCRYPTION_KEYS);
    return keys != null && !keys.isNull() && !(keys.isArray() && keys.isEmpty());
  }

  Iterable<JsonNode> array(String field) {
    JsonNode node = json.get(field);
    return node != null && node.isArray() ? node : List.of();
  }

  private Optional<String> text(String field) {
    JsonNode node = json.get(field);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
  }

  /** One {@code metadata-log} entry. */
  public record LogEntry(long timestampMs, String metadataFile) {}

  /** One {@code snapshot-log} entry. */
  public record SnapshotLogEntry(long timestampMs, long snapshotId) {}
}
