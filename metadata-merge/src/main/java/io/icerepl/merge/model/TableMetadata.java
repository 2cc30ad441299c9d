package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Table metadata as read from a metadata JSON file, losslessly: fields the replicator does not know
 * are carried as they are. The fields that grow with history are held compactly — {@code snapshots}
 * as the raw bytes of each entry plus the few fields read from it, {@code snapshot-log} and {@code
 * metadata-log} as arrays of their values — and every other field as its JSON tree, in the file's
 * order. Instances never change; {@link #toBuilder()} builds new metadata from one.
 */
public final class TableMetadata {
  /** Stands in {@link #fields} where a field is held compactly, keeping the file's field order. */
  static final JsonNode COMPACT = new TextNode("(held compactly)");

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ObjectNode fields;
  private final List<Snapshot> snapshots;
  private final List<SnapshotLogEntry> snapshotLog;
  private final List<LogEntry> metadataLog;
  private final SnapshotGraph graph;

  /**
   * @param fields every top-level field; {@link #COMPACT} where the lists below hold the field
   * @param snapshots the entries of {@code snapshots}, empty unless compact
   * @param snapshotLog the entries of {@code snapshot-log}, empty unless compact
   * @param metadataLog the entries of {@code metadata-log}, empty unless compact
   */
  TableMetadata(
      ObjectNode fields,
      List<Snapshot> snapshots,
      List<SnapshotLogEntry> snapshotLog,
      List<LogEntry> metadataLog) {
    this.fields = fields;
    this.snapshots = List.copyOf(snapshots);
    this.snapshotLog = List.copyOf(snapshotLog);
    this.metadataLog = List.copyOf(metadataLog);
    this.graph = SnapshotGraph.of(this.snapshots);
  }

  /** A deep copy of the whole metadata as one JSON tree, for building new metadata from it. */
  public ObjectNode copyOfJson() {
    return json().deepCopy();
  }

  /**
   * The whole metadata as one JSON tree, built on each call (history-long fields included): for
   * readers of the file as a document. The model's accessors and {@link #field} are the cheap way.
   */
  public ObjectNode json() {
    ObjectNode json = NODES.objectNode();
    fields.fields().forEachRemaining(e -> json.set(e.getKey(), field(e.getKey())));
    return json;
  }

  /**
   * One top-level field's JSON, {@code null} when absent. The history-long fields are built as
   * trees on each call; every other field is the one read, read-only by convention.
   */
  public JsonNode field(String name) {
    JsonNode value = fields.get(name);
    if (value != COMPACT) {
      return value;
    }
    ArrayNode array = NODES.arrayNode();
    switch (name) {
      case SNAPSHOTS -> snapshots.forEach(s -> array.add(s.json()));
      case SNAPSHOT_LOG -> snapshotLog.forEach(e -> array.add(e.toJson()));
      default -> metadataLog.forEach(e -> array.add(e.toJson()));
    }
    return array;
  }

  public int formatVersion() {
    return fields.get(FORMAT_VERSION).asInt();
  }

  public Optional<String> tableUuid() {
    return text(TABLE_UUID);
  }

  public String location() {
    return fields.get(LOCATION).asText();
  }

  public long lastSequenceNumber() {
    JsonNode node = fields.get(LAST_SEQUENCE_NUMBER);
    return node == null ? 0L : node.asLong();
  }

  public long lastUpdatedMs() {
    return fields.get(LAST_UPDATED_MS).asLong();
  }

  /** The current snapshot id, absent for an empty table (v1 and v2 may write -1 or null). */
  public Optional<Long> currentSnapshotId() {
    JsonNode node = fields.get(CURRENT_SNAPSHOT_ID);
    if (node == null || node.isNull() || node.asLong() == -1L) {
      return Optional.empty();
    }
    return Optional.of(node.asLong());
  }

  /** {@code snapshots}, in the file's order. */
  public List<Snapshot> snapshots() {
    return snapshots;
  }

  public Optional<Snapshot> snapshot(long snapshotId) {
    return graph.snapshot(snapshotId);
  }

  /**
   * {@code snapshots} as the forest of parent links the parser checked: the one way to walk a
   * snapshot's ancestors.
   */
  public SnapshotGraph graph() {
    return graph;
  }

  /** {@code metadata-log}: the previous metadata files, oldest first. */
  public List<LogEntry> metadataLog() {
    if (fields.get(METADATA_LOG) == COMPACT) {
      return metadataLog;
    }
    List<LogEntry> result = new ArrayList<>();
    for (JsonNode node : array(METADATA_LOG)) {
      result.add(new LogEntry(node.get(TIMESTAMP_MS).asLong(), node.get(METADATA_FILE).asText()));
    }
    return result;
  }

  /** {@code snapshot-log}: the snapshots that were current, in the order they became current. */
  public List<SnapshotLogEntry> snapshotLog() {
    if (fields.get(SNAPSHOT_LOG) == COMPACT) {
      return snapshotLog;
    }
    List<SnapshotLogEntry> result = new ArrayList<>();
    for (JsonNode node : array(SNAPSHOT_LOG)) {
      result.add(
          new SnapshotLogEntry(node.get(TIMESTAMP_MS).asLong(), node.get(SNAPSHOT_ID).asLong()));
    }
    return result;
  }

  public Map<String, String> properties() {
    Map<String, String> result = new LinkedHashMap<>();
    JsonNode props = fields.get(PROPERTIES);
    if (props != null && props.isObject()) {
      props.fields().forEachRemaining(e -> result.put(e.getKey(), e.getValue().asText()));
    }
    return result;
  }

  /** {@code refs}: name → snapshot id the ref points at. */
  public Map<String, Long> refs() {
    Map<String, Long> result = new LinkedHashMap<>();
    JsonNode refs = fields.get(REFS);
    if (refs != null && refs.isObject()) {
      refs.fields()
          .forEachRemaining(e -> result.put(e.getKey(), e.getValue().get(SNAPSHOT_ID).asLong()));
    }
    return result;
  }

  public boolean hasEncryptionKeys() {
    JsonNode keys = fields.get(ENCRYPTION_KEYS);
    return keys != null && !keys.isNull() && !(keys.isArray() && keys.isEmpty());
  }

  /** A builder starting from this metadata; the history-long fields are shared, not copied. */
  public Builder toBuilder() {
    return new Builder(fields.deepCopy(), snapshots, snapshotLog, metadataLog);
  }

  /** The top-level fields as held, {@link #COMPACT} standing in for the compact ones. */
  ObjectNode fields() {
    return fields;
  }

  Iterable<JsonNode> array(String field) {
    JsonNode node = field(field);
    return node != null && node.isArray() ? node : List.of();
  }

  /** Writes the metadata as one JSON object, streaming the history-long fields. */
  void writeTo(JsonGenerator out) throws IOException {
    out.writeStartObject();
    var it = fields.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> field = it.next();
      out.writeFieldName(field.getKey());
      if (field.getValue() != COMPACT) {
        out.writeTree(field.getValue());
        continue;
      }
      out.writeStartArray();
      switch (field.getKey()) {
        case SNAPSHOTS -> {
          for (Snapshot snapshot : snapshots) {
            snapshot.writeTo(out);
          }
        }
        case SNAPSHOT_LOG -> {
          for (SnapshotLogEntry entry : snapshotLog) {
            out.writeStartObject();
            out.writeNumberField(TIMESTAMP_MS, entry.timestampMs());
            out.writeNumberField(SNAPSHOT_ID, entry.snapshotId());
            out.writeEndObject();
          }
        }
        default -> {
          for (LogEntry entry : metadataLog) {
            out.writeStartObject();
            out.writeNumberField(TIMESTAMP_MS, entry.timestampMs());
            out.writeStringField(METADATA_FILE, entry.metadataFile());
            out.writeEndObject();
          }
        }
      }
      out.writeEndArray();
    }
    out.writeEndObject();
  }

  private Optional<String> text(String field) {
    JsonNode node = fields.get(field);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
  }

  /**
   * New metadata from existing metadata or a JSON tree. The small fields are edited as a tree in
   * place ({@link #fields()}); the history-long ones are set as lists, or as JSON arrays in the
   * tree, which {@link #build} then holds compactly.
   */
  public static final class Builder {
    private final ObjectNode fields;
    private List<Snapshot> snapshots;
    private List<SnapshotLogEntry> snapshotLog;
    private List<LogEntry> metadataLog;

    Builder(
        ObjectNode fields,
        List<Snapshot> snapshots,
        List<SnapshotLogEntry> snapshotLog,
        List<LogEntry> metadataLog) {
      this.fields = fields;
      this.snapshots = snapshots;
      this.snapshotLog = snapshotLog;
      this.metadataLog = metadataLog;
    }

    /**
     * The top-level fields, to edit in place. A history-long field held compactly reads as a
     * placeholder here: set it with its own method (or replace it with a JSON array).
     */
    public ObjectNode fields() {
      return fields;
    }

    public Builder snapshots(List<Snapshot> snapshots) {
      this.snapshots = snapshots;
      fields.set(SNAPSHOTS, COMPACT);
      return this;
    }

    public Builder snapshotLog(List<SnapshotLogEntry> snapshotLog) {
      this.snapshotLog = snapshotLog;
      fields.set(SNAPSHOT_LOG, COMPACT);
      return this;
    }

    public Builder metadataLog(List<LogEntry> metadataLog) {
      this.metadataLog = metadataLog;
      fields.set(METADATA_LOG, COMPACT);
      return this;
    }

    /** Validates the metadata as any read metadata, naming it {@code description} in errors. */
    public TableMetadata build(String description) {
      return TableMetadataParser.build(fields, snapshots, snapshotLog, metadataLog, description);
    }
  }

  /** One {@code metadata-log} entry. */
  public record LogEntry(long timestampMs, String metadataFile) {
    ObjectNode toJson() {
      return NODES.objectNode().put(TIMESTAMP_MS, timestampMs).put(METADATA_FILE, metadataFile);
    }
  }

  /** One {@code snapshot-log} entry. */
  public record SnapshotLogEntry(long timestampMs, long snapshotId) {
    ObjectNode toJson() {
      return NODES.objectNode().put(TIMESTAMP_MS, timestampMs).put(SNAPSHOT_ID, snapshotId);
    }
  }
}
