package io.icerepl.merge.manifest;

import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Real Iceberg tables written by the Iceberg library, with data files, deleted entries and (v2, v3)
 * delete files, for round trips through the rewriters. Files named in manifests do not exist.
 */
final class IcebergTables {

  static {
    // Iceberg logs every commit at INFO; keep test output readable.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

  static final int DELETE_FILE_PATH = 2147483546;
  static final int DELETE_POS = 2147483545;
  static final int DATA_COLUMN = 2;

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(DATA_COLUMN, "data", Types.StringType.get()),
          Types.NestedField.optional(3, "category", Types.StringType.get()));

  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("category").build();

  /** A table and the files it was built with. */
  record Fixture(
      int formatVersion,
      Table table,
      String sourceLocation,
      String replicaLocation,
      DataFile dataA,
      DataFile dataB,
      DataFile dataC,
      DeleteFile posDeleteSingleFile,
      DeleteFile posDeleteRange,
      DeleteFile posDeleteEscaping,
      DeleteFile eqDelete,
      DeleteFile dvB) {

    PathMapping mapping() {
      return PathMapping.of(sourceLocation, replicaLocation);
    }

    FileIO io() {
      return table.io();
    }

    Snapshot current() {
      return table.currentSnapshot();
    }

    /** A user-column bound and partition value that contain the source prefix as plain text. */
    String prefixLookalike() {
      return sourceLocation + "/not-a-path";
    }
  }

  private IcebergTables() {}

  static Fixture create(Path dir, int formatVersion) {
    return create(dir, formatVersion, Map.of());
  }

  static Fixture create(Path dir, int formatVersion, Map<String, String> properties) {
    Map<String, String> props = new HashMap<>(properties);
    props.put("format-version", Integer.toString(formatVersion));
    String source = "file:" + dir.resolve("source");
    String replica = "file:" + dir.resolve("replica");
    Table table = new HadoopTables(new Configuration()).create(SCHEMA, SPEC, props, source);
    String lookalike = source + "/not-a-path";

    DataFile dataA = dataFile(source + "/data/a.parquet", lookalike, List.of(4L, 1000L));
    DataFile dataB = dataFile(source + "/data/b.parquet", lookalike, List.of(4L));
    DataFile dataC = dataFile(source + "/data/c.parquet", lookalike, null);
    table.newAppend().appendFile(dataA).appendFile(dataB).commit();
    table.newAppend().appendFile(dataC).commit();
    table.newDelete().deleteFile(dataA).commit();

    DeleteFile single = null;
    DeleteFile range = null;
    DeleteFile escaping = null;
    DeleteFile eq = null;
    DeleteFile dv = null;
    if (formatVersion >= 2) {
      RowDelta delta = table.newRowDelta();
      eq =
          FileMetadata.deleteFileBuilder(SPEC)
              .ofEqualityDeletes(1)
              .withPath(source + "/data/eq-1.parquet")
              .withFormat(FileFormat.PARQUET)
              .withPartition(dataB.partition())
              .withFileSizeInBytes(321)
              .withRecordCount(3)
              .withMetrics(
                  metrics(
                      3,
                      Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 1L)),
                      Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 9L))))
              .withSplitOffsets(List.of(4L))
              .build();
      delta.addDeletes(eq);
      if (formatVersion == 2) {
        single =
            positionDeletes(
                dataB,
                source + "/data/pos-single.parquet",
                dataB.location(),
                dataB.location(),
                List.of(4L, 200L));
        range =
            positionDeletes(
                dataB,
                source + "/data/pos-range.parquet",
                dataB.location(),
                dataC.location(),
                List.of(4L));
        escaping =
            positionDeletes(
                dataB,
                source + "/data/pos-escaping.parquet",
                dataC.location(),
                "s3://elsewhere/warehouse/z.parquet",
                null);
        delta.addDeletes(single).addDeletes(range).addDeletes(escaping);
      } else {
        dv =
            FileMetadata.deleteFileBuilder(SPEC)
                .ofPositionDeletes()
                .withFormat(FileFormat.PUFFIN)
                .withPath(source + "/data/dv-1.puffin")
                .withPartition(dataB.partition())
                .withFileSizeInBytes(180)
                .withRecordCount(2)
                .withReferencedDataFile(dataB.location())
                .withContentOffset(4)
                .withContentSizeInBytes(60)
                .build();
        delta.addDeletes(dv);
      }
      delta.commit();
    }
    return new Fixture(
        formatVersion,
        table,
        source,
        replica,
        dataA,
        dataB,
        dataC,
        single,
        range,
        escaping,
        eq,
        dv);
  }

  static DataFile dataFile(String path, String lookalike, List<Long> splitOffsets) {
    return DataFiles.builder(SPEC)
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withPartitionValues(List.of(lookalike))
        .withFileSizeInBytes(1234)
        .withRecordCount(10)
        .withSplitOffsets(splitOffsets)
        .withMetrics(
            metrics(
                10,
                Map.of(DATA_COLUMN, utf8(lookalike + "/a")),
                Map.of(DATA_COLUMN, utf8(lookalike + "/z"))))
        .build();
  }

  static DeleteFile positionDeletes(
      DataFile partitionOf,
      String path,
      String lowerPath,
      String upperPath,
      List<Long> splitOffsets) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partitionOf.partition())
        .withFileSizeInBytes(555)
        .withRecordCount(5)
        .withSplitOffsets(splitOffsets)
        .withMetrics(
            metrics(
                5,
                Map.of(
                    DELETE_FILE_PATH, utf8(lowerPath),
                    DELETE_POS, Conversions.toByteBuffer(Types.LongType.get(), 0L)),
                Map.of(
                    DELETE_FILE_PATH, utf8(upperPath),
                    DELETE_POS, Conversions.toByteBuffer(Types.LongType.get(), 7L))))
        .build();
  }

  private static Metrics metrics(
      long records, Map<Integer, ByteBuffer> lower, Map<Integer, ByteBuffer> upper) {
    return new Metrics(records, null, null, null, null, lower, upper);
  }

  static ByteBuffer utf8(String value) {
    return ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8));
  }

  static String string(ByteBuffer value) {
    return value == null ? null : StandardCharsets.UTF_8.decode(value.duplicate()).toString();
  }

  // ---------------------------------------------------------------- files on disk

  static Path local(String location) {
    return Path.of(PathMapping.canonical(location));
  }

  static byte[] bytes(String location) {
    try {
      return Files.readAllBytes(local(location));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(String location, byte[] bytes) {
    try {
      Path path = local(location);
      Files.createDirectories(path.getParent());
      Files.write(path, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] rewriteManifest(
      byte[] manifest,
      String name,
      Function<String, String> mapPath,
      Function<String, RewrittenFile> rewritten) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ManifestRewriter.rewrite(new ByteArrayInputStream(manifest), out, name, mapPath, rewritten);
    return out.toByteArray();
  }

  /** Every manifest of any snapshot of the table, once each. */
  static List<ManifestFile> allManifests(Fixture fixture) {
    Map<String, ManifestFile> byPath = new LinkedHashMap<>();
    for (Snapshot snapshot : fixture.table().snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(fixture.io())) {
        byPath.putIfAbsent(manifest.path(), manifest);
      }
    }
    return new ArrayList<>(byPath.values());
  }

  /** What a replica of one snapshot looks like after rewriting its manifests and manifest list. */
  record Replica(Snapshot snapshot, Map<String, Long> manifestLengths, FileIO io) {}

  /**
   * Rewrites every manifest of the snapshot and its manifest list to the replica location on disk,
   * and returns the replica snapshot as Iceberg parses it.
   */
  static Replica replicate(
      Fixture fixture, Snapshot snapshot, Function<String, RewrittenFile> rewrittenDeleteFiles) {
    return replicate(fixture.io(), snapshot, fixture.mapping(), rewrittenDeleteFiles);
  }

  /** The same for any table's snapshot and mapping. */
  static Replica replicate(
      FileIO io,
      Snapshot snapshot,
      PathMapping mapping,
      Function<String, RewrittenFile> rewrittenDeleteFiles) {
    Map<String, Long> lengths = new HashMap<>();
    for (ManifestFile manifest : snapshot.allManifests(io)) {
      byte[] rewritten =
          rewriteManifest(
              bytes(manifest.path()),
              fileName(manifest.path()),
              mapping::map,
              rewrittenDeleteFiles);
      write(mapping.map(manifest.path()), rewritten);
      lengths.put(manifest.path(), (long) rewritten.length);
    }
    String list = snapshot.manifestListLocation();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ManifestListRewriter.rewrite(
        new ByteArrayInputStream(bytes(list)), out, fileName(list), mapping::map, lengths::get);
    String replicaList = mapping.map(list);
    write(replicaList, out.toByteArray());
    String json =
        SnapshotParser.toJson(snapshot).replace("\"" + list + "\"", "\"" + replicaList + "\"");
    Snapshot replica = SnapshotParser.fromJson(json);
    if (!replicaList.equals(replica.manifestListLocation())) {
      throw new IllegalStateException("manifest-list not replaced in " + json);
    }
    return new Replica(replica, lengths, new HadoopFileIO(new Configuration()));
  }

  static String fileName(String location) {
    return location.substring(location.lastIndexOf('/') + 1);
  }

  // ---------------------------------------------------------------- raw Avro views

  /** The Avro container's records, schema and metadata, read with plain Avro. */
  record AvroView(
      org.apache.avro.Schema schema, Map<String, String> meta, List<GenericRecord> records) {}

  static AvroView avro(byte[] bytes) {
    try (DataFileStream<GenericRecord> stream =
        new DataFileStream<>(new ByteArrayInputStream(bytes), new GenericDatumReader<>())) {
      Map<String, String> meta = new LinkedHashMap<>();
      for (String key : stream.getMetaKeys()) {
        meta.put(key, new String(stream.getMeta(key), StandardCharsets.UTF_8));
      }
      List<GenericRecord> records = new ArrayList<>();
      stream.forEach(records::add);
      return new AvroView(stream.getSchema(), meta, records);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
