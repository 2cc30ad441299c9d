package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table written alternately by the Java library and PyIceberg: each re-serialises the schemas,
 * specs and orders its own way, and replication goes on.
 */
class TwoWriterSpellingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @Test
  void aVersionThatSpellsSchemasSpecsAndOrdersAsPyIcebergDoesIsReplicated(@TempDir Path dir)
      throws Exception {
    ScenarioTable source =
        ScenarioTable.create(
            "TWO_WRITERS",
            dir.resolve("source").toUri().toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").bucket("id", 4).build(),
            SortOrder.builderFor(Scenario.SCHEMA).asc("id").build(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));
    source.record();
    String target = dir.resolve("replica").toUri().toString();
    Replication.replicate(source.location(), target);

    source.append(source.row(3, "c", "x"));
    source.record();
    List<Path> versions = Replication.versionFiles(source.location());
    respellAsPyIceberg(versions.get(versions.size() - 1));
    Replication.replicate(source.location(), target);
    verifier.verify(source, target);

    // the Java library reads the PyIceberg spelling back and writes its own again
    source.append(source.row(4, "d", "z"));
    source.record();
    Replication.replicate(source.location(), target);
    verifier.verify(source, target);
  }

  /**
   * Rewrites a metadata file as PyIceberg serialises it: {@code identifier-field-ids: []} on every
   * schema, its own key order in schemas, fields, specs and orders.
   */
  private static void respellAsPyIceberg(Path file) throws Exception {
    ObjectNode metadata = (ObjectNode) JSON.readTree(file.toFile());
    ArrayNode schemas = JSON.createArrayNode();
    for (JsonNode schema : metadata.get("schemas")) {
      ObjectNode s = JSON.createObjectNode();
      s.put("type", "struct");
      ArrayNode fields = s.putArray("fields");
      for (JsonNode field : schema.get("fields")) {
        fields
            .addObject()
            .put("id", field.get("id").asInt())
            .put("name", field.get("name").asText())
            .put("type", field.get("type").asText())
            .put("required", field.get("required").asBoolean());
      }
      s.put("schema-id", schema.get("schema-id").asInt());
      s.putArray("identifier-field-ids");
      schemas.add(s);
    }
    metadata.set("schemas", schemas);
    for (String listName : new String[] {"partition-specs", "sort-orders"}) {
      ArrayNode respelled = JSON.createArrayNode();
      for (JsonNode entry : metadata.get(listName)) {
        ObjectNode e = JSON.createObjectNode();
        ArrayNode fields = e.putArray("fields");
        for (JsonNode field : entry.get("fields")) {
          ObjectNode f = fields.addObject();
          f.set("source-id", field.get("source-id"));
          List.of("field-id", "transform", "name", "direction", "null-order")
              .forEach(
                  key -> {
                    if (field.has(key)) {
                      f.set(key, field.get(key));
                    }
                  });
        }
        String id = listName.equals("partition-specs") ? "spec-id" : "order-id";
        e.set(id, entry.get(id));
        respelled.add(e);
      }
      metadata.set(listName, respelled);
    }
    byte[] before = Files.readAllBytes(file);
    byte[] after = JSON.writeValueAsBytes(metadata);
    assertThat(after).isNotEqualTo(before);
    Files.write(file, after);
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }
}
