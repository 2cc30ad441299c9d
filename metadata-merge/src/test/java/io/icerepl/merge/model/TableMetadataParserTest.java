package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableMetadataParserTest {
  private static final String V2 =
      """
      {"format-version":2,"table-uuid":"u","location":"s3://b/t","last-sequence-number":0,
       "last-updated-ms":1,"last-column-id":1,"current-schema-id":0,
       "schemas":[{"type":"struct","schema-id":0,"fields":[]}],"default-spec-id":0,
       "partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
       "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],
       "snapshots":[{"snapshot-id":5,"timestamp-ms":1,"sequence-number":1,"summary":{"operation":"append"},
                     "manifest-list":"s3://b/t/metadata/snap-5.avro","x-new":{"a":[1,2]}}],
       "future":{"nested":true}}
      """;

  private static TableMetadata read(String json) {
    return TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "v3.metadata.json");
  }

  @Test
  void unknownFieldsSurviveAReadAndWrite() {
    TableMetadata metadata = read(V2);
    TableMetadata again = TableMetadataParser.read(TableMetadataParser.toJson(metadata), "copy");
    assertThat(again.json()).isEqualTo(metadata.json());
    assertThat(again.json().get("future").get("nested").asBoolean()).isTrue();
    assertThat(again.snapshots().get(0).json().get("x-new").get("a")).hasSize(2);
  }

  @Test
  void gzipMetadataIsRead() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      gzip.write(V2.getBytes(StandardCharsets.UTF_8));
    }
    TableMetadata metadata =
        TableMetadataParser.read(
            new ByteArrayInputStream(bytes.toByteArray()), "v3.gz.metadata.json", 1 << 20);
    assertThat(metadata.location()).isEqualTo("s3://b/t");
  }

  @Test
  void malformedJsonNamesTheFile() {
    assertThatThrownBy(() -> read("{\"format-version\": 2,"))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read table metadata v3.metadata.json: malformed JSON");
  }

  @Test
  void aViewsMetadataIsNamedAsAViewNotAsABrokenTable() {
    String view =
        "{\"view-uuid\":\"fa6506c3-7681-40c8-86dc-e36561f83385\",\"format-version\":1,"
            + "\"location\":\"s3://b/db/v\",\"current-version-id\":1,\"properties\":{},"
            + "\"versions\":[{\"version-id\":1,\"timestamp-ms\":1573518431292,\"schema-id\":1,"
            + "\"default-namespace\":[\"default\"],\"summary\":{\"engine-name\":\"Spark\"},"
            + "\"representations\":[{\"type\":\"sql\",\"sql\":\"SELECT 1\",\"dialect\":\"spark\"}]}],"
            + "\"schemas\":[{\"schema-id\":1,\"type\":\"struct\",\"fields\":[]}],"
            + "\"version-log\":[{\"timestamp-ms\":1573518431292,\"version-id\":1}]}";

    assertThatThrownBy(() -> read(view))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata v3.metadata.json: it is an Iceberg view's metadata"
                + " (view-uuid fa6506c3-7681-40c8-86dc-e36561f83385), not a table's; views are not"
                + " replicated");
  }

  @Test
  void unknownFormatVersionIsRefused() {
    assertThatThrownBy(() -> read(V2.replace("\"format-version\":2", "\"format-version\":4")))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata v3.metadata.json: unsupported format-version 4 (supported: 1, 2, 3)");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"location\":\"s3://b/t\",| location |",
        "\"table-uuid\":\"u\",| table-uuid |",
        "\"last-sequence-number\":0,| last-sequence-number |",
        "\"manifest-list\":\"s3://b/t/metadata/snap-5.avro\",| manifest-list | ' in snapshot 5'",
      })
  void missingRequiredFieldIsNamed(String field, String name, String where) {
    String expected = "'" + name + "'" + (where == null ? "" : where);
    String json = V2.replace(field, "");
    assertThatThrownBy(() -> read(json))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata v3.metadata.json: missing required field " + expected);
  }

  @Test
  void metadataOverTheLimitIsRefusedWhileStreaming() {
    byte[] bytes = V2.getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(
            () ->
                TableMetadataParser.read(new ByteArrayInputStream(bytes), "big.metadata.json", 100))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata big.metadata.json: larger than the configured limit of 100 bytes");
  }

  @Test
  void v1WithoutSchemasNeedsSchema() {
    ObjectNode json = (ObjectNode) read(V2).json().deepCopy();
    json.put("format-version", 1);
    json.remove("schemas");
    assertThatThrownBy(() -> TableMetadataParser.fromJson(json, "v1.metadata.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read table metadata v1.metadata.json: missing required field 'schema'");
  }

  @Test
  void aSnapshotKeptFromBeforeAnUpgradeFromV1NeedsNoSequenceNumberNorSummary() {
    String upgraded =
        V2.replace("\"sequence-number\":1,\"summary\":{\"operation\":\"append\"},", "")
            .replace("\"format-version\":2", "\"format-version\":3")
            .replace("\"table-uuid\"", "\"next-row-id\":0,\"table-uuid\"");
    assertThat(upgraded).doesNotContain("\"sequence-number\"").doesNotContain("\"summary\"");

    TableMetadata metadata = read(upgraded);

    assertThat(metadata.snapshots().get(0).sequenceNumber()).isZero();
  }

  @Test
  void aV2SnapshotWithEmbeddedManifestsIsRead() {
    String upgraded =
        V2.replace(
            "\"manifest-list\":\"s3://b/t/metadata/snap-5.avro\"",
            "\"manifests\":[\"s3://b/t/metadata/m0.avro\"]");

    assertThat(read(upgraded).snapshots().get(0).manifests())
        .containsExactly("s3://b/t/metadata/m0.avro");
  }
}
