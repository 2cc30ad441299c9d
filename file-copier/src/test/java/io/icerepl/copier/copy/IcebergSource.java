package io.icerepl.copier.copy;

import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * A source table on local disk whose metadata the Iceberg library writes: its manifest lists,
 * manifests and metadata files are written by Iceberg (in memory) and then put on disk under the
 * table's location, beside data files of random bytes, so the copier reads what a real writer
 * produced.
 */
final class IcebergSource {
  static {
    // Iceberg logs every commit at INFO; keep test output readable.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  private final String location;
  private final Table table;
  private final Random random = new Random(42);
  private int dataFiles;

  IcebergSource(Path dir) {
    this.location = dir.resolve("source/t").toString();
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("source", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    this.table =
        catalog.createTable(
            TableIdentifier.of("db", "t"),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            location,
            Map.of("format-version", "2"));
  }

  String location() {
    return location;
  }

  /** Commits one append of new data files of these lengths; their paths. */
  List<String> append(int... lengths) {
    AppendFiles append = table.newAppend();
    List<String> paths = new ArrayList<>();
    for (int length : lengths) {
      String path = location + "/data/f" + dataFiles++ + ".parquet";
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      write(path, bytes);
      DataFile file =
          DataFiles.builder(PartitionSpec.unpartitioned())
              .withPath(path)
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(length)
              .withRecordCount(1)
              .build();
      append.appendFile(file);
      paths.add(path);
    }
    append.commit();
    return paths;
  }

  /** The table's current metadata, as the replicator reads it, its files put on disk. */
  TableMetadata metadata() {
    FileIO io = table.io();
    for (Snapshot snapshot : table.snapshots()) {
      copyToDisk(io, snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        copyToDisk(io, manifest.path());
      }
    }
    String file = ((HasTableOperations) table).operations().current().metadataFileLocation();
    return TableMetadataParser.read(read(io, file), file);
  }

  /** A merge that adds every snapshot of the table, as a backfill's does. */
  MergeResult backfill() {
    TableMetadata metadata = metadata();
    return new MergeResult(
        metadata,
        metadata.snapshots().stream().map(MergeResult.AddedSnapshot::new).toList(),
        List.of());
  }

  /** The manifest list of the current snapshot. */
  String currentManifestList() {
    return table.currentSnapshot().manifestListLocation();
  }

  /** The manifests the current snapshot adds. */
  List<String> addedManifests() {
    Snapshot current = table.currentSnapshot();
    return current.allManifests(table.io()).stream()
        .filter(m -> m.snapshotId() == current.snapshotId())
        .map(ManifestFile::path)
        .toList();
  }

  private static void copyToDisk(FileIO io, String path) {
    write(path, read(io, path));
  }

  private static byte[] read(FileIO io, String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(String path, byte[] bytes) {
    try {
      Files.createDirectories(Path.of(path).getParent());
      Files.write(Path.of(path), bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
