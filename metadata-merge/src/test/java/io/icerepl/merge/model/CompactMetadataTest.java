package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The compact model (snapshots as raw entries, logs as arrays of values) reads and writes metadata
 * as the whole-tree parser did: the same JSON, unknown fields included.
 */
class CompactMetadataTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  /** A table with many snapshots, written by the Iceberg library; its last metadata file. */
  private static byte[] icebergMetadata(Path dir, int formatVersion, int commits) throws Exception {
    String location = dir.resolve("t").toUri().toString();
    Table table =
        new HadoopTables(new Configuration())
            .create(
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of("format-version", Integer.toString(formatVersion)),
                location);
    for (int i = 0; i < commits; i++) {
      table
          .newFastAppend()
          .appendFile(
              DataFiles.builder(PartitionSpec.unpartitioned())
                  .withPath(location + "/data/f-" + i + ".parquet")
                  .withFileSizeInBytes(100)
                  .withRecordCount(1)
                  .build())
          .commit();
    }
    table.manageSnapshots().createTag("t1", table.history().get(3).snapshotId()).commit();
    Path metadata = dir.resolve("t/metadata");
    String hint = Files.readString(metadata.resolve("version-hint.text")).trim();
    return Files.readAllBytes(metadata.resolve("v" + hint + ".metadata.json"));
  }

  /** Writes with the streaming writer and reads both back as plain trees. */
  private static JsonNode written(TableMetadata metadata) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TableMetadataParser.write(metadata, out);
    return PLAIN.readTree(out.toByteArray());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void aLongHistoryWritesBackTheJsonTheWholeTreeParserWrote(int formatVersion, @TempDir Path dir)
      throws Exception {
    byte[] file = icebergMetadata(dir, formatVersion, 60);
    ObjectNode tree = (ObjectNode) PLAIN.readTree(file);
    // fields of a newer writer, at the top, inside a snapshot and inside a log entry
    tree.putObject("x-future").putArray("a").add(1).add(2.5);
    ((ObjectNode) tree.get("snapshots").get(7)).put("x-snapshot-field", "kept");
    byte[] withUnknown = PLAIN.writeValueAsBytes(tree);

    for (byte[] bytes : List.of(file, withUnknown)) {
      TableMetadata metadata = TableMetadataParser.read(bytes, "v61.metadata.json");
      assertThat(metadata.snapshots()).hasSize(60);
      assertThat(written(metadata)).isEqualTo(PLAIN.readTree(bytes));
      assertThat(PLAIN.readTree(TableMetadataParser.toJson(metadata)))
          .isEqualTo(PLAIN.readTree(bytes));
      // every snapshot is held as its own bytes, not as a tree
      for (int i = 0; i < 60; i++) {
        assertThat(PLAIN.readTree(metadata.snapshots().get(i).raw()))
            .isEqualTo(PLAIN.readTree(bytes).get("snapshots").get(i));
      }
      assertThat(metadata.json()).isEqualTo(PLAIN.readTree(bytes));
    }
  }

  @Test
  void aLogEntryWithMoreFieldsKeepsTheWholeLogAsItIs(@TempDir Path dir) throws Exception {
    ObjectNode tree = (ObjectNode) PLAIN.readTree(icebergMetadata(dir, 2, 10));
    ((ObjectNode) tree.get("snapshot-log").get(4)).put("x-log", "kept");
    ((ObjectNode) tree.get("metadata-log").get(2)).put("x-log", 1);
    byte[] bytes = PLAIN.writeValueAsBytes(tree);

    TableMetadata metadata = TableMetadataParser.read(bytes, "v11.metadata.json");

    assertThat(written(metadata)).isEqualTo(tree);
    assertThat(metadata.snapshotLog()).hasSize(10);
    assertThat(metadata.metadataLog()).hasSize(tree.get("metadata-log").size());
  }

  @Test
  void aMappedSnapshotSharesItsBytesAndIsWrittenWithItsPathsMapped() throws Exception {
    String json =
        """
        {"format-version":1,"location":"s3://b/t","last-updated-ms":1,"last-column-id":1,
         "schema":{"type":"struct","fields":[]},"partition-spec":[],
         "snapshots":[
           {"snapshot-id":5,"timestamp-ms":1,"manifest-list":"s3://b/t/metadata/snap-5.avro",
            "summary":{"operation":"append","x":"s3://b/t/metadata/snap-5.avro"},"x-new":[1,{"b":2}]},
           {"snapshot-id":6,"parent-snapshot-id":5,"timestamp-ms":2,
            "manifests":["s3://b/t/metadata/m1.avro","s3://b/t/metadata/m2.avro"]}]}
        """;
    TableMetadata metadata =
        TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "v2.metadata.json");
    Snapshot listed = metadata.snapshots().get(0);
    Snapshot embedded = metadata.snapshots().get(1);

    Snapshot mappedList = listed.withManifestPaths(p -> p.replace("s3://b/t", "s3://r/t"));
    Snapshot mappedManifests = embedded.withManifestPaths(p -> p.replace("s3://b/t", "s3://r/t"));

    assertThat(mappedList.raw()).isSameAs(listed.raw());
    assertThat(mappedList.manifestList()).contains("s3://r/t/metadata/snap-5.avro");
    assertThat(mappedManifests.manifests())
        .containsExactly("s3://r/t/metadata/m1.avro", "s3://r/t/metadata/m2.avro");
    TableMetadata.Builder builder = metadata.toBuilder();
    builder.snapshots(List.of(mappedList, mappedManifests));
    JsonNode out = written(builder.build("mapped")).get("snapshots");

    JsonNode original = PLAIN.readTree(json).get("snapshots");
    ObjectNode expectedList = original.get(0).deepCopy();
    expectedList.put("manifest-list", "s3://r/t/metadata/snap-5.avro");
    ObjectNode expectedManifests = original.get(1).deepCopy();
    expectedManifests
        .putArray("manifests")
        .add("s3://r/t/metadata/m1.avro")
        .add("s3://r/t/metadata/m2.avro");
    // only the manifest paths change: the summary's look-alike value and unknown fields stay
    assertThat(out.get(0)).isEqualTo(expectedList);
    assertThat(out.get(1)).isEqualTo(expectedManifests);
    assertThat(mappedList.json()).isEqualTo(expectedList);
    assertThat(PLAIN.readTree(listed.raw())).isEqualTo(original.get(0));
  }

  @Test
  void aManifestListIsHeldAsTheEntrysBytesAndDecodedOnEachRead() {
    String json =
        """
        {"format-version":1,"location":"s3://b/t","last-updated-ms":1,"last-column-id":1,
         "schema":{"type":"struct","fields":[]},"partition-spec":[],
         "snapshots":[
           {"snapshot-id":5,"timestamp-ms":1,"manifest-list":"s3://b/t/metadata/snap-\\u00e9 \\"q\\".avro"},
           {"snapshot-id":6,"timestamp-ms":2,"manifest-list":"s3://b/t/metadata/snap-é.avro"}]}
        """;
    TableMetadata metadata =
        TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "v2.metadata.json");
    Snapshot escaped = metadata.snapshots().get(0);
    Snapshot plain = metadata.snapshots().get(1);
    Snapshot mapped = plain.withManifestPaths(p -> p.replace("s3://b/t", "s3://r/t"));

    assertThat(escaped.manifestList()).contains("s3://b/t/metadata/snap-é \"q\".avro");
    assertThat(plain.manifestList()).contains("s3://b/t/metadata/snap-é.avro");
    assertThat(mapped.manifestList()).contains("s3://r/t/metadata/snap-é.avro");
    // a history of a million snapshots holds no path beside the entries' bytes: each read decodes
    assertThat(plain.manifestList().orElseThrow()).isNotSameAs(plain.manifestList().orElseThrow());
    assertThat(mapped.manifestList().orElseThrow())
        .isNotSameAs(mapped.manifestList().orElseThrow());
  }

  /**
   * A mapped snapshot is written as its bytes with only the manifest list replaced: the same bytes
   * as re-encoding the whole entry with the mapped path, whatever the path needs escaped and
   * wherever the field lies in the entry.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "s3://r/t",
        "s3://r/t-é-日本",
        "s3://r/t \"q\" \\ back",
        "s3://r/t\ttab\u0001ctl",
        "s3://r/t/😀"
      })
  void aSplicedSnapshotIsByteForByteItsReEncoding(String target) throws Exception {
    String json =
        """
        {"format-version":2,"table-uuid":"u","location":"s3://b/t","last-sequence-number":3,
         "last-updated-ms":1,"last-column-id":1,"current-schema-id":0,
         "schemas":[{"type":"struct","schema-id":0,"fields":[]}],"default-spec-id":0,
         "partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
         "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],
         "snapshots":[
           {"manifest-list":"s3://b/t/metadata/snap-4.avro","snapshot-id":4,"timestamp-ms":1,
            "sequence-number":1},
           {"snapshot-id":5,"parent-snapshot-id":4,"timestamp-ms":2,"sequence-number":2,
            "summary":{"operation":"append","x":"s3://b/t/metadata/snap-5.avro"},
            "manifest-list":"s3://b/t/metadata/snap-\\u00e9 \\"q\\".avro","schema-id":0,
            "x-new":[1,2.5,{"b":null,"c":true}]},
           {"snapshot-id":6,"parent-snapshot-id":5,"timestamp-ms":3,"sequence-number":3,
            "manifest-list":"s3://b/t/metadata/snap-6.avro"}]}
        """;
    TableMetadata metadata =
        TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "v2.metadata.json");
    List<Snapshot> mapped =
        metadata.snapshots().stream()
            .map(s -> s.withManifestPaths(p -> p.replace("s3://b/t", target)))
            .toList();
    TableMetadata.Builder builder = metadata.toBuilder();
    builder.snapshots(mapped);
    TableMetadata written = builder.build("mapped");

    byte[] reEncoded = TableMetadataParser.mapper().writeValueAsBytes(written.json());
    assertThat(new String(TableMetadataParser.toJson(written), StandardCharsets.UTF_8))
        .isEqualTo(new String(reEncoded, StandardCharsets.UTF_8));
    JsonNode snapshots = PLAIN.readTree(TableMetadataParser.toJson(written)).get("snapshots");
    assertThat(snapshots.get(1).get("manifest-list").asText())
        .isEqualTo(target + "/metadata/snap-é \"q\".avro");
    assertThat(snapshots.get(1).get("summary").get("x").asText())
        .isEqualTo("s3://b/t/metadata/snap-5.avro");
    assertThat(snapshots.get(0).get("manifest-list").asText())
        .isEqualTo(target + "/metadata/snap-4.avro");
    // mapped twice (a fail-back maps a replica's paths again): the last mapping is written
    Snapshot twice = mapped.get(2).withManifestPaths(p -> p.replace(target, "s3://again/t"));
    builder.snapshots(List.of(mapped.get(0), mapped.get(1), twice));
    assertThat(
            written(builder.build("mapped twice"))
                .get("snapshots")
                .get(2)
                .get("manifest-list")
                .asText())
        .isEqualTo("s3://again/t/metadata/snap-6.avro");
  }

  @Test
  void aManifestListIsKnownEqualFromTheBytesOnlyWhenMappedByAnEqualMapping() {
    String json =
        """
        {"format-version":1,"location":"s3://b/t","last-updated-ms":1,"last-column-id":1,
         "schema":{"type":"struct","fields":[]},"partition-spec":[],
         "snapshots":[
           {"snapshot-id":5,"timestamp-ms":1,"manifest-list":"s3://b/t/metadata/snap-5.avro"},
           {"snapshot-id":6,"timestamp-ms":2,"manifest-list":"s3://b/t/metadata/snap-6.avro"}]}
        """;
    List<Snapshot> read =
        TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "v2.metadata.json")
            .snapshots();
    List<Snapshot> again =
        TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "v3.metadata.json")
            .snapshots();
    PathMapping mapping = PathMapping.of("s3://b/t", "s3://r/t");
    Snapshot replica = read.get(0).withManifestPaths(mapping);

    assertThat(replica.hasManifestListOf(again.get(0), PathMapping.of("s3://b/t/", "s3://r/t")))
        .isFalse(); // another spelling of the prefix: not the same mapping
    assertThat(replica.hasManifestListOf(again.get(0), PathMapping.of("s3://b/t", "s3://r/t")))
        .isTrue();
    assertThat(replica.hasManifestListOf(again.get(1), mapping)).isFalse();
    assertThat(replica.hasManifestListOf(again.get(0), PathMapping.of("s3://b/t", "s3://q/t")))
        .isFalse();
    assertThat(replica.hasManifestListOf(again.get(0).withManifestPaths(mapping), mapping))
        .isFalse();
    UnaryOperator<String> lambda = mapping::map;
    UnaryOperator<String> another = mapping::map;
    Snapshot byLambda = read.get(0).withManifestPaths(lambda);
    assertThat(byLambda.hasManifestListOf(again.get(0), lambda)).isTrue();
    assertThat(byLambda.hasManifestListOf(again.get(0), another)).isFalse(); // not known equal
    assertThat(read.get(0).hasManifestListOf(again.get(0), mapping)).isFalse();
  }

  /** Entries spliced past the generator's buffer, as a long history's are, keep every byte. */
  @Test
  void aLongMappedHistoryIsWrittenAsItsReEncoding(@TempDir Path dir) throws Exception {
    TableMetadata metadata = TableMetadataParser.read(icebergMetadata(dir, 2, 40), "v41");
    String location = metadata.location();
    PathMapping mapping = PathMapping.of(location, "s3://replica/db/t");
    TableMetadata.Builder builder = metadata.toBuilder();
    builder.snapshots(
        metadata.snapshots().stream().map(s -> s.withManifestPaths(mapping)).toList());
    TableMetadata mapped = builder.build("mapped");

    byte[] written = TableMetadataParser.toJson(mapped);
    assertThat(written.length).isGreaterThan(3 * 8000); // several of the generator's buffers
    assertThat(new String(written, StandardCharsets.UTF_8))
        .isEqualTo(
            new String(
                TableMetadataParser.mapper().writeValueAsBytes(mapped.json()),
                StandardCharsets.UTF_8));
    for (JsonNode snapshot : PLAIN.readTree(written).get("snapshots")) {
      assertThat(snapshot.get("manifest-list").asText()).startsWith("s3://replica/db/t/metadata/");
    }
  }
}
