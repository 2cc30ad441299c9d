package io.icerepl.merge.deletes;

import static io.icerepl.merge.deletes.DeleteFixtures.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ParquetPositionDeleteRewriteTest {
  @TempDir Path dir;

  private Table table;
  private PathMapping mapping;

  @BeforeEach
  void createTable() {
    table = DeleteFixtures.createTable(dir, 2);
    mapping = PathMapping.of(table.location(), TARGET);
  }

  private String dataFile(String name) {
    return table.location() + "/data/" + name;
  }

  /** Deletes for three data files, sorted by (file_path, pos) as Iceberg writes them. */
  private List<PositionDelete<Record>> deletes(int perFile) {
    List<PositionDelete<Record>> deletes = new ArrayList<>();
    for (String name : List.of("00000-a.parquet", "00001-b.parquet", "00002-c.parquet")) {
      for (int i = 0; i < perFile; i++) {
        deletes.add(DeleteFixtures.positionDelete(dataFile(name), (long) i * 3 + 1, null));
      }
    }
    return deletes;
  }

  /** A deleted row per delete, some of them absent (the row struct is optional). */
  private static List<Record> rows(int count) {
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      if (i % 5 == 4) {
        rows.add(null);
        continue;
      }
      Record row = GenericRecord.create(DeleteFixtures.TABLE_SCHEMA);
      row.setField("id", (long) i * 7);
      row.setField("data", i % 3 == 0 ? null : "row-" + i);
      rows.add(row);
    }
    return rows;
  }

  /**
   * Writes position deletes with Iceberg's writer. Iceberg 1.12 no longer writes the deleted row,
   * so files with rows come from {@link #writeDeletesWithRows}.
   */
  private Path writeDeletes(
      String name, List<PositionDelete<Record>> deletes, Map<String, String> props)
      throws IOException {
    Path file = dir.resolve(name);
    // not forTable(table): in 1.12 it sets a row schema, which the position writer now rejects
    PositionDeleteWriter<Record> writer =
        Parquet.writeDeletes(Files.localOutput(file.toFile()))
            .setAll(table.properties())
            .metricsConfig(MetricsConfig.forPositionDelete())
            .withSpec(table.spec())
            .setAll(props)
            .meta("replication-test", "kept")
            .overwrite()
            .buildPositionWriter();
    try (writer) {
      for (PositionDelete<Record> delete : deletes) {
        writer.write(delete);
      }
    }
    return file;
  }

  /**
   * A position delete file with the optional row struct, as Iceberg before 1.12 could write it: the
   * Iceberg position delete schema converted to Parquet (field ids included) and the iceberg.schema
   * key, written with parquet-hadoop's example writer.
   */
  private Path writeDeletesWithRows(
      String name, List<PositionDelete<Record>> deletes, List<Record> rows) throws IOException {
    Path file = dir.resolve(name);
    Schema icebergSchema = DeleteSchemaUtil.posDeleteReadSchema(DeleteFixtures.TABLE_SCHEMA);
    MessageType type = ParquetSchemaUtil.convert(icebergSchema, "table");
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(type)
            .withCompressionCodec(CompressionCodecName.GZIP)
            .withExtraMetaData(
                Map.of(
                    "iceberg.schema",
                    SchemaParser.toJson(icebergSchema),
                    "replication-test",
                    "kept"))
            .build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(type);
      for (int i = 0; i < deletes.size(); i++) {
        Group group = groups.newGroup();
        group.add("file_path", deletes.get(i).path().toString());
        group.add("pos", deletes.get(i).pos());
        Record row = rows.get(i);
        if (row != null) {
          Group rowGroup = group.addGroup("row");
          rowGroup.add("id", (Long) row.getField("id"));
          if (row.getField("data") != null) {
            rowGroup.add("data", (String) row.getField("data"));
          }
        }
        writer.write(group);
      }
    }
    return file;
  }

  private Path writeDeletes(String name, List<PositionDelete<Record>> deletes) throws IOException {
    return writeDeletes(name, deletes, Map.of());
  }

  private static List<Record> readWithIceberg(Path file, Schema schema) throws IOException {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> reader =
        Parquet.read(Files.localInput(file.toFile()))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      reader.forEach(r -> records.add(r.copy()));
    }
    return records;
  }

  private static ParquetMetadata footer(Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      return reader.getFooter();
    }
  }

  private RewrittenFile rewrite(Path source, ByteArrayOutputStream out) throws IOException {
    return PositionDeleteRewriter.rewrite(
        "PARQUET",
        DeleteFixtures.input(source),
        out,
        source.getFileName().toString(),
        mapping::map);
  }

  @Test
  void everyFilePathIsMappedUnderTheTargetAndPositionsKeepTheirOrder() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(500);
    Path source = writeDeletes("deletes.parquet", deletes);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.parquet", out);

    List<Record> rows = readWithIceberg(replica, DeleteSchemaUtil.pathPosSchema());
    assertThat(rows).hasSize(deletes.size());
    for (int i = 0; i < rows.size(); i++) {
      String original = deletes.get(i).path().toString();
      assertThat((String) rows.get(i).getField("file_path"))
          .startsWith(TARGET + "/data/")
          .isEqualTo(mapping.map(original));
      assertThat(rows.get(i).getField("pos")).isEqualTo(deletes.get(i).pos());
    }
  }

  @Test
  void everyFilePathIsHandedOverInTheFilesOrder() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(500);
    Path source = writeDeletes("deletes.parquet", deletes);
    List<String> read = new java.util.ArrayList<>();

    PositionDeleteRewriter.forEachFilePath(
        "PARQUET", DeleteFixtures.input(source), "deletes.parquet", read::add);

    assertThat(read)
        .containsExactlyElementsOf(deletes.stream().map(d -> d.path().toString()).toList());
  }

  @Test
  void deletedRowStructIsKept() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(50);
    Path source = writeDeletesWithRows("deletes-rows.parquet", deletes, rows(deletes.size()));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.parquet", out);

    Schema withRow = DeleteSchemaUtil.posDeleteReadSchema(DeleteFixtures.TABLE_SCHEMA);
    List<Record> sourceRows = readWithIceberg(source, withRow);
    List<Record> replicaRows = readWithIceberg(replica, withRow);
    assertThat(replicaRows).hasSize(sourceRows.size());
    assertThat(sourceRows.stream().filter(r -> r.getField("row") != null)).hasSize(120);
    for (int i = 0; i < replicaRows.size(); i++) {
      assertThat(replicaRows.get(i).getField("row")).isEqualTo(sourceRows.get(i).getField("row"));
      assertThat(replicaRows.get(i).getField("pos")).isEqualTo(sourceRows.get(i).getField("pos"));
      assertThat(replicaRows.get(i).getField("file_path"))
          .isEqualTo(mapping.map((String) sourceRows.get(i).getField("file_path")));
    }
  }

  @Test
  void footerStatisticsOfFilePathAreTheMappedPaths() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(200);
    Path source = writeDeletes("deletes.parquet", deletes);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.parquet", out);

    List<String> mapped =
        deletes.stream().map(d -> mapping.map(d.path().toString())).sorted().toList();
    Binary min = null;
    Binary max = null;
    for (BlockMetaData block : footer(replica).getBlocks()) {
      ColumnChunkMetaData column = filePathColumn(block);
      Statistics<?> stats = column.getStatistics();
      assertThat(stats.hasNonNullValue()).isTrue();
      Binary blockMin = (Binary) stats.genericGetMin();
      Binary blockMax = (Binary) stats.genericGetMax();
      min = min == null || blockMin.compareTo(min) < 0 ? blockMin : min;
      max = max == null || blockMax.compareTo(max) > 0 ? blockMax : max;
    }
    assertThat(min.toStringUsingUTF8()).isEqualTo(mapped.get(0));
    assertThat(max.toStringUsingUTF8()).isEqualTo(mapped.get(mapped.size() - 1));

    // Iceberg's own metrics, as a manifest would record them, read the same bounds.
    var metrics =
        ParquetUtil.fileMetrics(
            Files.localInput(replica.toFile()), MetricsConfig.forPositionDelete());
    int filePathId = 2147483546;
    assertThat(
            org.apache.iceberg.types.Conversions.<CharSequence>fromByteBuffer(
                    org.apache.iceberg.types.Types.StringType.get(),
                    metrics.lowerBounds().get(filePathId))
                .toString())
        .isEqualTo(mapped.get(0));
  }

  private static ColumnChunkMetaData filePathColumn(BlockMetaData block) {
    return block.getColumns().stream()
        .filter(c -> c.getPath().toDotString().equals("file_path"))
        .findFirst()
        .orElseThrow();
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd", "gzip", "snappy", "uncompressed"})
  void codecSchemaWithFieldIdsAndKeyValueMetadataAreKept(String codec) throws IOException {
    Path source =
        writeDeletes(
            "deletes.parquet",
            deletes(100),
            Map.of(TableProperties.DELETE_PARQUET_COMPRESSION, codec));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.parquet", out);

    ParquetMetadata before = footer(source);
    ParquetMetadata after = footer(replica);
    assertThat(after.getFileMetaData().getKeyValueMetaData())
        .containsEntry("replication-test", "kept")
        .isEqualTo(before.getFileMetaData().getKeyValueMetaData());
    // toString prints the field ids ("= 2147483546"): compare them too, not just names
    assertThat(after.getFileMetaData().getSchema().toString())
        .contains("= 2147483546")
        .isEqualTo(before.getFileMetaData().getSchema().toString());
    for (BlockMetaData block : after.getBlocks()) {
      for (ColumnChunkMetaData column : block.getColumns()) {
        assertThat(column.getCodec())
            .isEqualTo(before.getBlocks().get(0).getColumns().get(0).getCodec());
      }
    }
  }

  @Test
  void returnedLengthIsTheBytesWrittenAndSplitOffsetsAreTheNewRowGroupStarts() throws IOException {
    // Small row groups at the source: several of them, at offsets the replica will not share.
    Map<String, String> smallGroups =
        Map.of(
            TableProperties.DELETE_PARQUET_ROW_GROUP_SIZE_BYTES, "4096",
            TableProperties.DELETE_PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "10",
            TableProperties.DELETE_PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "100");
    Path source = writeDeletes("deletes.parquet", deletes(3000), smallGroups);
    assertThat(footer(source).getBlocks()).hasSizeGreaterThan(1);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RewrittenFile result = rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.parquet", out);

    assertThat(result.fileSizeInBytes()).isEqualTo(out.size());
    ParquetMetadata written = footer(replica);
    List<Long> rowGroupStarts =
        written.getBlocks().stream().map(BlockMetaData::getStartingPos).sorted().toList();
    assertThat(result.splitOffsets()).isNotEmpty().isEqualTo(rowGroupStarts);
    assertThat(result.splitOffsets()).isEqualTo(ParquetUtil.getSplitOffsets(written));
  }

  @Test
  void describeReturnsWhatRewriteReturned() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(300));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RewrittenFile result = rewrite(source, out);

    RewrittenFile described =
        PositionDeleteRewriter.describe(
            "Parquet",
            new io.icerepl.merge.io.ByteArraySeekableInput(out.toByteArray()),
            "replica.parquet");
    assertThat(described).isEqualTo(result);
  }

  @Test
  void fileFormatIsCaseInsensitive() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(5));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PositionDeleteRewriter.rewrite(
        "parquet", DeleteFixtures.input(source), out, "deletes.parquet", mapping::map);
    assertThat(
            readWithIceberg(
                DeleteFixtures.save(dir, "r.parquet", out), DeleteSchemaUtil.pathPosSchema()))
        .hasSize(15);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3, 100, -8, -1})
  void truncatedInputIsBadInputNamingTheFile(int cut) throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(200));
    long length = java.nio.file.Files.size(source);
    int keep = cut >= 0 ? cut : (int) length + cut;

    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "PARQUET",
                    DeleteFixtures.truncated(source, keep),
                    new ByteArrayOutputStream(),
                    "s3://src/deletes.parquet",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .isNotInstanceOf(PathOutsideMappingException.class)
        .hasMessageStartingWith("Cannot read position delete file s3://src/deletes.parquet: ")
        .hasCauseInstanceOf(Exception.class);
  }

  @Test
  void truncatedReplicaCannotBeDescribed() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(20));
    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.describe(
                    "PARQUET", DeleteFixtures.truncated(source, 40), "replica.parquet"))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read position delete file replica.parquet: ");
  }

  @Test
  void filePathOutsideTheMappingPropagatesPathOutsideMappingException() throws IOException {
    List<PositionDelete<Record>> deletes = new ArrayList<>(deletes(5));
    deletes.add(DeleteFixtures.positionDelete("file:/elsewhere/data/x.parquet", 1L, null));
    deletes.sort(Comparator.comparing(d -> d.path().toString()));
    Path source = writeDeletes("deletes.parquet", deletes);

    assertThatThrownBy(() -> rewrite(source, new ByteArrayOutputStream()))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining("/elsewhere/data/x.parquet");
  }

  @Test
  void callerOutputStreamIsFlushedButNotClosed() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(5));
    DeleteFixtures.TrackingOutput out = new DeleteFixtures.TrackingOutput();
    rewrite(source, out);
    assertThat(out.closed).isFalse();
    assertThat(out.size()).isPositive();
  }

  @Test
  void failingOutputIsAnUncheckedIoExceptionNotBadInput() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(5));
    OutputStream failing =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("disk full");
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            throw new IOException("disk full");
          }
        };
    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "PARQUET", DeleteFixtures.input(source), failing, "d.parquet", mapping::map))
        .isInstanceOf(UncheckedIOException.class)
        .hasRootCauseMessage("disk full");
  }

  @Test
  void mapPathIsAppliedToEveryRow() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(40));
    Map<String, Integer> calls = new HashMap<>();
    PositionDeleteRewriter.rewrite(
        "PARQUET",
        DeleteFixtures.input(source),
        new ByteArrayOutputStream(),
        "deletes.parquet",
        p -> {
          calls.merge(p, 1, Integer::sum);
          return mapping.map(p);
        });
    assertThat(calls.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(120);
  }

  @Test
  void encryptedParquetFooterIsUnsupported() throws IOException {
    Path source = writeDeletes("deletes.parquet", deletes(5));
    byte[] bytes = java.nio.file.Files.readAllBytes(source);
    // an encrypted footer ends the file with "PARE"
    bytes[bytes.length - 1] = 'E';
    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "PARQUET",
                    new io.icerepl.merge.io.ByteArraySeekableInput(bytes),
                    new ByteArrayOutputStream(),
                    "enc.parquet",
                    mapping::map))
        .isExactlyInstanceOf(io.icerepl.merge.error.UnsupportedFeatureException.class)
        .hasMessage(
            "Cannot rewrite position delete file enc.parquet: it is an encrypted Parquet file, which is not supported");
  }
}
