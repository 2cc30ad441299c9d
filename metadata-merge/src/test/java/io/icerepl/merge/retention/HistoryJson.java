package io.icerepl.merge.retention;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;

/**
 * Builds small, valid table metadata JSON with hand-made histories (branches, tags, staged
 * snapshots, statistics) for retention tests. Timestamps are absolute milliseconds.
 */
final class HistoryJson {
  static final String UUID = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  static final String LOCATION = "s3://replica/db/t";
  final ObjectNode json;

  private HistoryJson(ObjectNode json) {
    this.json = json;
  }

  static HistoryJson table(int formatVersion) {
    ObjectNode json = TableMetadataParser.mapper().createObjectNode();
    json.put("format-version", formatVersion);
    json.put("table-uuid", UUID);
    json.put("location", LOCATION);
    json.put("last-sequence-number", 0);
    json.put("last-updated-ms", 1_000L);
    json.put("last-column-id", 1);
    json.put("current-schema-id", 0);
    ArrayNode schemas = json.putArray("schemas");
    ObjectNode schema = schemas.addObject();
    schema.put("type", "struct");
    schema.put("schema-id", 0);
    ObjectNode field = schema.putArray("fields").addObject();
    field.put("id", 1);
    field.put("name", "id");
    field.put("required", true);
    field.put("type", "long");
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
      json.set("schema", schema.deepCopy());
      json.putArray("partition-spec");
    }
    if (formatVersion >= 3) {
      json.put("next-row-id", 0);
    }
    return new HistoryJson(json);
  }

  int formatVersion() {
    return json.get("format-version").asInt();
  }

  /** Adds a snapshot, makes it current on main and logs it. */
  HistoryJson commit(long id, Long parent, long timestampMs) {
    snapshot(id, parent, timestampMs);
    json.put("current-snapshot-id", id);
    json.with("refs").putObject("main").put("snapshot-id", id).put("type", "branch");
    json.withArray("snapshot-log")
        .addObject()
        .put("timestamp-ms", timestampMs)
        .put("snapshot-id", id);
    json.put("last-updated-ms", Math.max(json.get("last-updated-ms").asLong(), timestampMs));
    return this;
  }

  /** Adds a snapshot that no ref names and the log does not list (a staged one, or a branch's). */
  HistoryJson snapshot(long id, Long parent, long timestampMs) {
    long seq = json.get("last-sequence-number").asLong() + 1;
    ObjectNode snapshot = json.withArray("snapshots").addObject();
    snapshot.put("snapshot-id", id);
    if (parent != null) {
      snapshot.put("parent-snapshot-id", parent);
    }
    snapshot.put("timestamp-ms", timestampMs);
    if (formatVersion() >= 2) {
      snapshot.put("sequence-number", seq);
      json.put("last-sequence-number", seq);
    }
    snapshot.putObject("summary").put("operation", "append");
    snapshot.put("manifest-list", LOCATION + "/metadata/snap-" + id + ".avro");
    snapshot.put("schema-id", 0);
    json.put("last-updated-ms", Math.max(json.get("last-updated-ms").asLong(), timestampMs));
    return this;
  }

  /** Adds a branch; {@code retention} is field/value pairs such as "min-snapshots-to-keep", 3L. */
  HistoryJson branch(String name, long snapshotId, Object... retention) {
    return ref(name, "branch", snapshotId, retention);
  }

  HistoryJson tag(String name, long snapshotId, Object... retention) {
    return ref(name, "tag", snapshotId, retention);
  }

  private HistoryJson ref(String name, String type, long snapshotId, Object... retention) {
    ObjectNode ref = json.with("refs").putObject(name);
    ref.put("snapshot-id", snapshotId);
    ref.put("type", type);
    for (int i = 0; i < retention.length; i += 2) {
      ref.put((String) retention[i], ((Number) retention[i + 1]).longValue());
    }
    return this;
  }

  /** A v1 table written before refs existed: main is implied by current-snapshot-id. */
  HistoryJson withoutRefs() {
    json.remove("refs");
    return this;
  }

  HistoryJson logSnapshot(long timestampMs, long snapshotId) {
    json.withArray("snapshot-log")
        .addObject()
        .put("timestamp-ms", timestampMs)
        .put("snapshot-id", snapshotId);
    return this;
  }

  HistoryJson logMetadataFile(long timestampMs, String file) {
    json.withArray("metadata-log")
        .addObject()
        .put("timestamp-ms", timestampMs)
        .put("metadata-file", file);
    return this;
  }

  /** A table statistics file (Puffin) as Iceberg writes it. */
  HistoryJson statistics(long snapshotId) {
    ObjectNode stats = json.withArray("statistics").addObject();
    stats.put("snapshot-id", snapshotId);
    stats.put("statistics-path", LOCATION + "/metadata/stats-" + snapshotId + ".puffin");
    stats.put("file-size-in-bytes", 100);
    stats.put("file-footer-size-in-bytes", 50);
    ObjectNode blob = stats.putArray("blob-metadata").addObject();
    blob.put("type", "apache-datasketches-theta-v1");
    blob.put("snapshot-id", snapshotId);
    blob.put("sequence-number", 1);
    blob.putArray("fields").add(1);
    return this;
  }

  HistoryJson partitionStatistics(long snapshotId) {
    ObjectNode stats = json.withArray("partition-statistics").addObject();
    stats.put("snapshot-id", snapshotId);
    stats.put("statistics-path", LOCATION + "/metadata/partition-stats-" + snapshotId + ".parquet");
    stats.put("file-size-in-bytes", 100);
    return this;
  }

  HistoryJson property(String key, String value) {
    json.with("properties").put(key, value);
    return this;
  }

  TableMetadata build() {
    return TableMetadataParser.fromJson(json.deepCopy(), "test.metadata.json");
  }

  /** The metadata as Iceberg's own parser reads it: throws if Iceberg would reject it. */
  static org.apache.iceberg.TableMetadata parsedByIceberg(TableMetadata metadata) {
    return org.apache.iceberg.TableMetadataParser.fromJson(
        new String(TableMetadataParser.toJson(metadata), java.nio.charset.StandardCharsets.UTF_8));
  }
}
