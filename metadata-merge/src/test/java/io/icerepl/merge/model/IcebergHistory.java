package io.icerepl.merge.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * A table's history written by the Iceberg library (appends, branches, tags, expiry) on local
 * files, and its current metadata JSON, as written or hand-edited, read back by the parser. The
 * data files appended need not exist: only the history is read.
 */
final class IcebergHistory {
  static {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  final Table table;
  private int files;

  private IcebergHistory(Table table) {
    this.table = table;
  }

  static IcebergHistory create(Path dir, int formatVersion, Map<String, String> properties) {
    Map<String, String> props = new java.util.HashMap<>(properties);
    props.put("format-version", Integer.toString(formatVersion));
    return new IcebergHistory(
        new HadoopTables(new Configuration())
            .create(SCHEMA, PartitionSpec.unpartitioned(), props, dir.toUri().toString()));
  }

  /** Appends one file to {@code main}; returns the new snapshot's id. */
  long append() {
    table.newAppend().appendFile(nextFile()).commit();
    return table.currentSnapshot().snapshotId();
  }

  /** Appends one file to {@code branch}; returns the new snapshot's id. */
  long appendTo(String branch) {
    table.newAppend().appendFile(nextFile()).toBranch(branch).commit();
    return table.refs().get(branch).snapshotId();
  }

  private DataFile nextFile() {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/f" + files++ + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }

  /** The current metadata file's location, as the table's metadata-log will name it. */
  String metadataFile() {
    return ((BaseTable) table).operations().current().metadataFileLocation();
  }

  /** The current metadata file's JSON, to edit. */
  ObjectNode json() {
    try {
      return (ObjectNode)
          TableMetadataParser.mapper()
              .readTree(Files.readAllBytes(Path.of(java.net.URI.create(metadataFile()))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The current metadata as the parser reads it. */
  TableMetadata read() {
    return read(json());
  }

  /** The current metadata, hand-edited by {@code edit}, as the parser reads it. */
  TableMetadata readEdited(Consumer<ObjectNode> edit) {
    ObjectNode json = json();
    edit.accept(json);
    return read(json);
  }

  static TableMetadata read(ObjectNode json) {
    try {
      return TableMetadataParser.read(
          TableMetadataParser.mapper().writeValueAsBytes(json), "v9.metadata.json");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sets the parent of snapshot {@code id} in {@code json}'s snapshots. */
  static void setParent(ObjectNode json, long id, long parent) {
    for (var snapshot : json.withArray("snapshots")) {
      if (snapshot.get("snapshot-id").asLong() == id) {
        ((ObjectNode) snapshot).put("parent-snapshot-id", parent);
      }
    }
  }
}
