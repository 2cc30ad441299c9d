package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fields the spec requires per format-version, and which problem is named first. */
class RequiredFieldsTest {
  private static final String FILE = "s3://b/t/metadata/v4.metadata.json";

  private static ObjectNode v2() {
    ObjectNode json = TableMetadataParser.mapper().createObjectNode();
    json.put("format-version", 2)
        .put("table-uuid", "u")
        .put("location", "s3://b/t")
        .put("last-sequence-number", 0)
        .put("last-updated-ms", 1)
        .put("last-column-id", 1)
        .put("current-schema-id", 0)
        .put("default-spec-id", 0)
        .put("last-partition-id", 999)
        .put("default-sort-order-id", 0);
    json.putArray("schemas").addObject().put("schema-id", 0);
    json.putArray("partition-specs").addObject().put("spec-id", 0);
    json.putArray("sort-orders").addObject().put("order-id", 0);
    return json;
  }

  private static TableMetadata check(ObjectNode json, String snapshotProblem) {
    TableMetadata metadata = new TableMetadata(json, List.of(), List.of(), List.of());
    return RequiredFields.check(metadata, snapshotProblem, FILE);
  }

  private static void assertProblem(ObjectNode json, String snapshotProblem, String problem) {
    assertThatThrownBy(() -> check(json, snapshotProblem))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read table metadata " + FILE + ": " + problem);
  }

  @Test
  void completeMetadataIsReturnedAsItIs() {
    TableMetadata metadata = new TableMetadata(v2(), List.of(), List.of(), List.of());
    assertThat(RequiredFields.check(metadata, null, FILE)).isSameAs(metadata);
  }

  @Test
  void formatVersionThreeNeedsNextRowId() {
    ObjectNode json = v2().put("format-version", 3);
    assertProblem(json, null, "missing required field 'next-row-id'");
    check(json.put("next-row-id", 0), null);
  }

  @Test
  void formatVersionOneNeedsASchemaInEitherForm() {
    ObjectNode json = v2().put("format-version", 1);
    json.remove("schemas");
    assertProblem(json, null, "missing required field 'schema'");
    json.putObject("schema");
    check(json, null);
  }

  @Test
  void aSnapshotsProblemIsNamedOnlyOnceTheTopLevelFieldsAreComplete() {
    ObjectNode json = v2();
    json.remove("location");
    assertProblem(json, "bad snapshot 5", "missing required field 'location'");
    assertProblem(v2(), "bad snapshot 5", "bad snapshot 5");
  }

  @Test
  void aRefWithoutTypeIsNamed() {
    ObjectNode json = v2();
    json.putObject("refs").putObject("audit").put("snapshot-id", 5).put("type", 1);
    assertProblem(json, null, "field 'type' in ref 'audit' must be a string");
  }

  @Test
  void aPartitionStatisticsEntryNeedsItsStatisticsPath() {
    ObjectNode json = v2();
    json.putArray("partition-statistics").addObject().put("snapshot-id", 5);
    assertProblem(
        json, null, "missing required field 'statistics-path' in a partition-statistics entry");
  }

  @Test
  void aMetadataLogEntryHeldAsATreeNeedsItsFile() {
    ObjectNode json = v2();
    json.putArray("metadata-log").addObject().put("timestamp-ms", 1).put("x", 2);
    assertProblem(json, null, "missing required field 'metadata-file' in a metadata-log entry");
  }

  @Test
  void aSchemasListNeedsIdsInEveryEntry() {
    ObjectNode json = v2();
    json.withArray("schemas").addObject().put("type", "struct");
    assertProblem(json, null, "missing required field 'schema-id' in a schema");
  }
}
