package io.icerepl.merge.deletes;

import static io.icerepl.merge.deletes.DeleteFixtures.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.io.ByteArraySeekableInput;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AvroPositionDeleteRewriteTest {
  @TempDir Path dir;

  private Table table;
  private PathMapping mapping;

  @BeforeEach
  void createTable() {
    table = DeleteFixtures.createTable(dir, 2);
    mapping = PathMapping.of(table.location(), TARGET);
  }

  private List<PositionDelete<Record>> deletes(int perFile) {
    List<PositionDelete<Record>> deletes = new ArrayList<>();
    for (String name : List.of("00000-a.avro", "00001-b.parquet")) {
      for (int i = 0; i < perFile; i++) {
        deletes.add(
            DeleteFixtures.positionDelete(table.location() + "/data/" + name, (long) i * 2, null));
      }
    }
    return deletes;
  }

  private Path writeDeletes(
      String name, List<PositionDelete<Record>> deletes, Map<String, String> props)
      throws IOException {
    Path file = dir.resolve(name);
    PositionDeleteWriter<Record> writer =
        Avro.writeDeletes(Files.localOutput(file.toFile()))
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

  private static List<Record> readWithIceberg(Path file, Schema schema) throws IOException {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> reader =
        Avro.read(Files.localInput(file.toFile()))
            .project(schema)
            .createResolvingReader(PlannedDataReader::create)
            .build()) {
      reader.forEach(r -> records.add(r.copy()));
    }
    return records;
  }

  private RewrittenFile rewrite(Path source, ByteArrayOutputStream out) throws IOException {
    return PositionDeleteRewriter.rewrite(
        "AVRO", DeleteFixtures.input(source), out, source.getFileName().toString(), mapping::map);
  }

  private static DataFileStream<Object> header(byte[] bytes) throws IOException {
    return new DataFileStream<>(new ByteArrayInputStream(bytes), new GenericDatumReader<>());
  }

  @Test
  void everyFilePathIsMappedUnderTheTargetAndPositionsKeepTheirOrder() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(2000);
    Path source = writeDeletes("deletes.avro", deletes, Map.of());

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.avro", out);

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

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd", "snappy", "uncompressed"})
  void codecSchemaAndUserMetadataAreKept(String codec) throws IOException {
    Path source =
        writeDeletes(
            "deletes.avro", deletes(50), Map.of(TableProperties.DELETE_AVRO_COMPRESSION, codec));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);

    try (DataFileStream<Object> before = header(java.nio.file.Files.readAllBytes(source));
        DataFileStream<Object> after = header(out.toByteArray())) {
      assertThat(after.getMetaString("avro.codec")).isEqualTo(before.getMetaString("avro.codec"));
      assertThat(after.getSchema()).isEqualTo(before.getSchema());
      assertThat(after.getSchema().getField("file_path").getObjectProp("field-id"))
          .isEqualTo(2147483546);
      assertThat(after.getMetaString("replication-test")).isEqualTo("kept");
      Map<String, String> userBefore = new HashMap<>();
      Map<String, String> userAfter = new HashMap<>();
      before.getMetaKeys().stream()
          .filter(k -> !k.startsWith("avro."))
          .forEach(k -> userBefore.put(k, before.getMetaString(k)));
      after.getMetaKeys().stream()
          .filter(k -> !k.startsWith("avro."))
          .forEach(k -> userAfter.put(k, after.getMetaString(k)));
      assertThat(userAfter).isNotEmpty().isEqualTo(userBefore);
    }
  }

  @Test
  void deletedRowStructIsKept() throws IOException {
    // Iceberg 1.12 no longer writes the row; older writers did, with this schema.
    Schema icebergSchema = DeleteSchemaUtil.posDeleteReadSchema(DeleteFixtures.TABLE_SCHEMA);
    org.apache.avro.Schema avroSchema = AvroSchemaUtil.convert(icebergSchema, "position_delete");
    org.apache.avro.Schema rowSchema =
        avroSchema.getField("row").schema().getTypes().stream()
            .filter(t -> t.getType() == org.apache.avro.Schema.Type.RECORD)
            .findFirst()
            .orElseThrow();
    Path source = dir.resolve("deletes-rows.avro");
    try (DataFileWriter<GenericData.Record> writer =
        new DataFileWriter<GenericData.Record>(new GenericDatumWriter<>(avroSchema))) {
      writer.create(avroSchema, source.toFile());
      for (int i = 0; i < 30; i++) {
        GenericData.Record delete = new GenericData.Record(avroSchema);
        delete.put("file_path", table.location() + "/data/f.parquet");
        delete.put("pos", (long) i);
        if (i % 4 != 3) {
          GenericData.Record row = new GenericData.Record(rowSchema);
          row.put("id", (long) i * 11);
          row.put("data", i % 2 == 0 ? "d" + i : null);
          delete.put("row", row);
        }
        writer.append(delete);
      }
    }

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rewrite(source, out);
    Path replica = DeleteFixtures.save(dir, "replica.avro", out);

    List<Record> before = readWithIceberg(source, icebergSchema);
    List<Record> after = readWithIceberg(replica, icebergSchema);
    assertThat(after).hasSize(30);
    assertThat(before.stream().filter(r -> r.getField("row") != null)).hasSize(23);
    for (int i = 0; i < after.size(); i++) {
      assertThat(after.get(i).getField("row")).isEqualTo(before.get(i).getField("row"));
      assertThat(after.get(i).getField("pos")).isEqualTo(before.get(i).getField("pos"));
      assertThat(after.get(i).getField("file_path")).isEqualTo(TARGET + "/data/f.parquet");
    }
  }

  @Test
  void returnedLengthIsTheBytesWrittenWithoutSplitOffsetsAndDescribeAgrees() throws IOException {
    Path source = writeDeletes("deletes.avro", deletes(100), Map.of());
    DeleteFixtures.TrackingOutput out = new DeleteFixtures.TrackingOutput();
    RewrittenFile result =
        PositionDeleteRewriter.rewrite(
            "avro", DeleteFixtures.input(source), out, "deletes.avro", mapping::map);

    assertThat(result.fileSizeInBytes()).isEqualTo(out.size());
    assertThat(result.splitOffsets()).isNull();
    assertThat(out.closed).isFalse();
    assertThat(
            PositionDeleteRewriter.describe(
                "AVRO", new ByteArraySeekableInput(out.toByteArray()), "replica.avro"))
        .isEqualTo(result);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2, 40, -30, -1})
  void truncatedInputIsBadInputNamingTheFile(int cut) throws IOException {
    // one large block (the default sync interval), so every cut lands inside the header or a block
    Path source = writeDeletes("deletes.avro", deletes(300), Map.of());
    int keep = cut >= 0 ? cut : (int) java.nio.file.Files.size(source) + cut;

    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "AVRO",
                    DeleteFixtures.truncated(source, keep),
                    new ByteArrayOutputStream(),
                    "s3://src/deletes.avro",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read position delete file s3://src/deletes.avro: ")
        .cause()
        .isNotNull();
  }

  @Test
  void filePathOutsideTheMappingPropagatesPathOutsideMappingException() throws IOException {
    List<PositionDelete<Record>> deletes = new ArrayList<>(deletes(3));
    deletes.add(DeleteFixtures.positionDelete("s3://other-bucket/t/data/x.parquet", 0L, null));
    Path source = writeDeletes("deletes.avro", deletes, Map.of());

    assertThatThrownBy(() -> rewrite(source, new ByteArrayOutputStream()))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining("s3://other-bucket/t/data/x.parquet");
  }

  @Test
  void avroFileWithoutFilePathIsBadInput() throws IOException {
    org.apache.avro.Schema schema =
        org.apache.avro.SchemaBuilder.record("r").fields().requiredLong("x").endRecord();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataFileWriter<GenericData.Record> writer =
        new DataFileWriter<GenericData.Record>(new GenericDatumWriter<>(schema))) {
      writer.create(schema, bytes);
      GenericData.Record record = new GenericData.Record(schema);
      record.put("x", 1L);
      writer.append(record);
    }
    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "AVRO",
                    new ByteArraySeekableInput(bytes.toByteArray()),
                    new ByteArrayOutputStream(),
                    "not-deletes.avro",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("not-deletes.avro")
        .hasMessageContaining("file_path");
  }
}
