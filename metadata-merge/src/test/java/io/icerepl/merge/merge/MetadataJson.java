package io.icerepl.merge.merge;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;

/** Builds small, valid table metadata JSON by hand for merge tests. */
public final class MetadataJson {
  static final String UUID = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  public final ObjectNode json;

  private MetadataJson(ObjectNode json) {
    this.json = json;
  }

  /** Metadata as a source again, e.g. a promoted table replicated on. */
  static MetadataJson of(io.icerepl.merge.model.TableMetadata metadata) {
    return new MetadataJson(metadata.copyOfJson());
  }

  public static MetadataJson table(int formatVersion, String location) {
    ObjectNode json = TableMetadataParser.mapper().createObjectNode();
    json.put("format-version", formatVersion);
    json.put("table-uuid", UUID);
    json.put("location", location);
    json.put("last-sequence-number", 0);
    json.put("last-updated-ms", 1_000L);
    json.put("last-column-id", 1);
    json.put("current-schema-id", 0);
    ArrayNode schemas = json.putArray("schemas");
    schemas.add(schema(0, "id", "long"));
    json.put("default-spec-id", 0);
    json.putArray("partition-specs").addObject().put("spec-id", 0).putArray("fields");
    json.put("last-partition-id", 999);
    json.put("default-sort-order-id", 0);
    json.putArray("sort-orders").addObject().put("order-id", 0).putArray("fields");
    json.putObject("properties");
    json.put("current-snapshot-id", -1);
    json.putObject("refs");
    json.putArray("snapshots");
    json.putArray("snapshot-log");
    json.putArray("metadata-log");
    if (formatVersion == 1) {
      json.set("schema", schemas.get(0).deepCopy());
      json.putArray("partition-spec");
    }
    if (formatVersion >= 3) {
      json.put("next-row-id", 0);
    }
    return new MetadataJson(json);
  }

  static ObjectNode schema(int id, String fieldName, String type) {
    ObjectNode schema = TableMetadataParser.mapper().createObjectNode();
    schema.put("type", "struct");
    schema.put("schema-id", id);
    ObjectNode field = schema.putArray("fields").addObject();
    field.put("id", 1);
    field.put("name", fieldName);
    field.put("required", true);
    field.put("type", type);
    return schema;
  }

  /** Adds a snapshot, makes it current on main and logs it. */
  public MetadataJson commit(long id, Long parent, long timestampMs) {
    addSnapshot(id, parent, timestampMs);
    json.put("current-snapshot-id", id);
    json.with("refs").putObject("main").put("snapshot-id", id).put("type", "branch");
    json.withArray("snapshot-log")
        .addObject()
        .put("timestamp-ms", timestampMs)
        .put("snapshot-id", id);
    json.put("last-updated-ms", timestampMs);
    return this;
  }

  MetadataJson addSnapshot(long id, Long parent, long timestampMs) {
    long seq = json.get("last-sequence-number").asLong() + 1;
    ObjectNode snapshot = json.withArray("snapshots").addObject();
    snapshot.put("snapshot-id", id);
    if (parent != null) {
      snapshot.put("parent-snapshot-id", parent);
    }
    snapshot.put("timestamp-ms", timestampMs);
    if (json.get("format-version").asInt() >= 2) {
      snapshot.put("sequence-number", seq);
      json.put("last-sequence-number", seq);
    }
    snapshot.putObject("summary").put("operation", "append");
    snapshot.put("manifest-list", location() + "/metadata/snap-" + id + ".avro");
    snapshot.put("schema-id", 0);
    return this;
  }

  MetadataJson dropSnapshot(long id) {
    ArrayNode snapshots = json.withArray("snapshots");
    for (int i = snapshots.size() - 1; i >= 0; i--) {
      if (snapshots.get(i).get("snapshot-id").asLong() == id) {
        snapshots.remove(i);
      }
    }
    ArrayNode log = json.withArray("snapshot-log");
    int last = -1;
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).get("snapshot-id").asLong() == id) {
        last = i;
      }
    }
    for (int i = last; i >= 0; i--) {
      log.remove(i);
    }
    return this;
  }

  public MetadataJson property(String key, String value) {
    json.with("properties").put(key, value);
    return this;
  }

  public MetadataJson logMetadataFile(long timestampMs, String file) {
    json.withArray("metadata-log")
        .addObject()
        .put("timestamp-ms", timestampMs)
        .put("metadata-file", file);
    return this;
  }

  String location() {
    return json.get("location").asText();
  }

  public MetadataJson copy() {
    return new MetadataJson(json.deepCopy());
  }

  public TableMetadata build() {
    return TableMetadataParser.fromJson(json.deepCopy(), "test.metadata.json");
  }
}
