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
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.orc.GenericOrcReader;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.orc.ORC;
import org.apache.iceberg.orc.OrcMetrics;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.orc.ColumnStatistics;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.StringColumnStatistics;
import org.apache.orc.StripeInformation;
import org.apache.orc.StripeStatistics;
import org.apache.orc.TypeDescription;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OrcPositionDeleteRewriteTest {
  private static final int FILE_PATH_ID = 2147483546;

  @TempDir Path dir;

  private Table table;
  private PathMapping mapping;

  @BeforeEach
  void createTable() {
    table = DeleteFixtures.createTable(dir, 2);
    mapping = PathMapping.of(table.location(), TARGET);
  }

  /** Deletes for three data files, sorted by (file_path, pos) as Iceberg writes them. */
  private List<PositionDelete<Record>> deletes(int perFile) {
    List<PositionDelete<Record>> deletes = new ArrayList<>();
    for (String name : List.of("00000-a.orc", "00001-b.orc", "00002-c.orc")) {
      for (int i = 0; i < perFile; i++) {
        deletes.add(
            DeleteFixtures.positionDelete(
                table.location() + "/data/" + name, (long) i * 3 + 1, null));
      }
    }
    return deletes;
  }

  /** Position deletes written by Iceberg's ORC writer. */
  private Path writeDeletes(List<PositionDelete<Record>> deletes, Map<String, String> props)
      throws IOException {
    Path file = dir.resolve("deletes.orc");
    PositionDeleteWriter<Record> writer =
        ORC.writeDeletes(Files.localOutput(file.toFile()))
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

  private Path rewrite(Path source, ByteArrayOutputStream out) throws IOException {
    PositionDeleteRewriter.rewrite(
        "ORC", DeleteFixtures.input(source), out, source.getFileName().toString(), mapping::map);
    return DeleteFixtures.save(dir, "replica.orc", out);
  }

  private static List<Record> readWithIceberg(Path file, Schema schema) throws IOException {
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> reader =
        ORC.read(Files.localInput(file.toFile()))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericOrcReader.buildReader(schema, fileSchema))
            .build()) {
      reader.forEach(r -> records.add(r.copy()));
    }
    return records;
  }

  private static Reader orc(Path file) throws IOException {
    return OrcFile.createReader(
        new org.apache.hadoop.fs.Path(file.toUri()), OrcFile.readerOptions(new Configuration()));
  }

  @Test
  void everyFilePathIsMappedAndPositionsKeepTheirOrder() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(2000);
    Path replica = rewrite(writeDeletes(deletes, Map.of()), new ByteArrayOutputStream());

    List<Record> rows = readWithIceberg(replica, DeleteSchemaUtil.pathPosSchema());
    assertThat(rows).hasSize(deletes.size());
    for (int i = 0; i < rows.size(); i++) {
      assertThat((String) rows.get(i).getField("file_path"))
          .startsWith(TARGET + "/data/")
          .isEqualTo(mapping.map(deletes.get(i).path().toString()));
      assertThat(rows.get(i).getField("pos")).isEqualTo(deletes.get(i).pos());
    }
  }

  @Test
  void fileAndStripeStatisticsOfFilePathAreTheMappedPaths() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(200);
    Path replica = rewrite(writeDeletes(deletes, Map.of()), new ByteArrayOutputStream());

    List<String> mapped =
        deletes.stream().map(d -> mapping.map(d.path().toString())).sorted().toList();
    String first = mapped.get(0);
    String last = mapped.get(mapped.size() - 1);
    try (Reader reader = orc(replica)) {
      int column = reader.getSchema().findSubtype("file_path").getId();
      StringColumnStatistics file = (StringColumnStatistics) reader.getStatistics()[column];
      assertThat(file.getMinimum()).isEqualTo(first);
      assertThat(file.getMaximum()).isEqualTo(last);
      List<StripeStatistics> stripes = reader.getStripeStatistics();
      assertThat(stripes).isNotEmpty();
      for (StripeStatistics stripe : stripes) {
        ColumnStatistics stats = stripe.getColumnStatistics()[column];
        assertThat(((StringColumnStatistics) stats).getMinimum()).startsWith(TARGET);
        assertThat(((StringColumnStatistics) stats).getMaximum()).startsWith(TARGET);
      }
    }
    // Iceberg's own metrics, as a manifest would record them, read the same bounds.
    Metrics metrics =
        OrcMetrics.fromInputFile(
            Files.localInput(replica.toFile()), MetricsConfig.forPositionDelete());
    assertThat(string(metrics.lowerBounds().get(FILE_PATH_ID))).isEqualTo(first);
    assertThat(string(metrics.upperBounds().get(FILE_PATH_ID))).isEqualTo(last);
  }

  private static String string(ByteBuffer value) {
    return Conversions.<CharSequence>fromByteBuffer(Types.StringType.get(), value).toString();
  }

  @ParameterizedTest
  @ValueSource(strings = {"zlib", "zstd", "snappy", "none"})
  void schemaWithIcebergIdsCompressionAndUserMetadataAreKept(String codec) throws IOException {
    Path source = writeDeletes(deletes(100), Map.of(TableProperties.DELETE_ORC_COMPRESSION, codec));
    Path replica = rewrite(source, new ByteArrayOutputStream());

    try (Reader before = orc(source);
        Reader after = orc(replica)) {
      assertThat(after.getSchema().toJson()).isEqualTo(before.getSchema().toJson());
      assertThat(attributes(after.getSchema()))
          .containsEntry(
              after.getSchema().findSubtype("file_path").getId() + ".iceberg.id",
              Integer.toString(FILE_PATH_ID))
          .isEqualTo(attributes(before.getSchema()));
      assertThat(after.getCompressionKind()).isEqualTo(before.getCompressionKind());
      assertThat(after.getCompressionSize()).isEqualTo(before.getCompressionSize());
      assertThat(after.getFileVersion()).isEqualTo(before.getFileVersion());
      assertThat(after.getRowIndexStride()).isEqualTo(before.getRowIndexStride());
      assertThat(userMetadata(after))
          .containsKey("replication-test")
          .isEqualTo(userMetadata(before));
    }
  }

  /** Every type attribute (Iceberg's field ids among them), keyed by column id and name. */
  private static Map<String, String> attributes(TypeDescription type) {
    Map<String, String> attributes = new HashMap<>();
    for (String name : type.getAttributeNames()) {
      attributes.put(type.getId() + "." + name, type.getAttributeValue(name));
    }
    if (type.getChildren() != null) {
      type.getChildren().forEach(child -> attributes.putAll(attributes(child)));
    }
    return attributes;
  }

  private static Map<String, ByteBuffer> userMetadata(Reader reader) {
    Map<String, ByteBuffer> metadata = new HashMap<>();
    for (String key : reader.getMetadataKeys()) {
      metadata.put(key, reader.getMetadataValue(key));
    }
    return metadata;
  }

  @Test
  void returnedLengthIsTheBytesWrittenSplitOffsetsAreTheStripeStartsAndDescribeAgrees()
      throws IOException {
    Path source =
        writeDeletes(deletes(30000), Map.of(TableProperties.DELETE_ORC_STRIPE_SIZE_BYTES, "65536"));
    DeleteFixtures.TrackingOutput out = new DeleteFixtures.TrackingOutput();
    RewrittenFile result =
        PositionDeleteRewriter.rewrite(
            "orc", DeleteFixtures.input(source), out, "deletes.orc", mapping::map);
    Path replica = DeleteFixtures.save(dir, "replica.orc", out);

    assertThat(result.fileSizeInBytes()).isEqualTo(out.size());
    assertThat(out.closed).isFalse();
    try (Reader reader = orc(replica)) {
      List<Long> stripeStarts =
          reader.getStripes().stream().map(StripeInformation::getOffset).sorted().toList();
      assertThat(result.splitOffsets()).isNotEmpty().isEqualTo(stripeStarts);
    }
    assertThat(PositionDeleteRewriter.describe("ORC", DeleteFixtures.input(replica), "replica.orc"))
        .isEqualTo(result);
  }

  @Test
  void filePathOutsideTheMappingPropagatesPathOutsideMappingException() throws IOException {
    List<PositionDelete<Record>> deletes = deletes(10);
    deletes.add(DeleteFixtures.positionDelete("s3://elsewhere/data/x.orc", 1, null));
    Path source = writeDeletes(deletes, Map.of());

    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "ORC",
                    DeleteFixtures.input(source),
                    new ByteArrayOutputStream(),
                    "d.orc",
                    mapping::map))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining("s3://elsewhere/data/x.orc");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3, 40, -200, -20, -1})
  void truncatedInputIsBadInputNamingTheFile(int cut) throws IOException {
    Path source = writeDeletes(deletes(500), Map.of());
    int keep = cut >= 0 ? cut : (int) java.nio.file.Files.size(source) + cut;

    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "ORC",
                    DeleteFixtures.truncated(source, keep),
                    new ByteArrayOutputStream(),
                    "s3://src/d.orc",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .isNotInstanceOf(PathOutsideMappingException.class)
        .hasMessageStartingWith("Cannot read position delete file s3://src/d.orc: ");
  }
}
