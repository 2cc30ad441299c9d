package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourcePrefixesTest {
  private static final String REPLICA = "s3://replica/wh/t";

  @Test
  void theFirstLocationMapsToTheReplicaAndEveryOtherPrefixToAFolderOfItsOwn() {
    SourcePrefixes prefixes =
        SourcePrefixes.of(REPLICA, List.of(), List.of(), List.of())
            .learn(
                version("s3://src/wh/t", Map.of("write.data.path", "s3://data-a/t")),
                "v1.metadata.json")
            .learn(
                version(
                    "s3://src/wh/t2",
                    Map.of(
                        "write.data.path", "s3://data-b/t", "write.metadata.path", "s3://meta/t")),
                "v2.metadata.json");

    assertThat(prefixes.learned())
        .containsExactly(
            new PathMapping.Prefix("s3://src/wh/t", REPLICA),
            new PathMapping.Prefix(
                "s3://data-a/t", REPLICA + "/data/data-a-t-" + hash("s3://data-a/t")),
            new PathMapping.Prefix(
                "s3://src/wh/t2", REPLICA + "/data/src-wh-t2-" + hash("s3://src/wh/t2")),
            new PathMapping.Prefix(
                "s3://data-b/t", REPLICA + "/data/data-b-t-" + hash("s3://data-b/t")),
            new PathMapping.Prefix(
                "s3://meta/t", REPLICA + "/metadata/meta-t-" + hash("s3://meta/t")));
    PathMapping mapping = prefixes.mapping();
    assertThat(mapping.map("s3://src/wh/t/data/a.parquet")).isEqualTo(REPLICA + "/data/a.parquet");
    assertThat(mapping.map("s3://data-a/t/b.parquet")).startsWith(REPLICA + "/data/data-a-t-");
  }

  @Test
  void prefixesWithTheSameReadableNameGetDifferentFolders() {
    assertThat(SourcePrefixes.folderName("s3://a/b-c"))
        .isNotEqualTo(SourcePrefixes.folderName("s3://a-b/c"));
    assertThat(SourcePrefixes.folderName("file:/x/y"))
        .isEqualTo(SourcePrefixes.folderName("/x/y/"));
    assertThat(SourcePrefixes.folderName("s3a://b/ext/t"))
        .isEqualTo(SourcePrefixes.folderName("s3://b/ext/t/"));
  }

  @Test
  void aRememberedPrefixKeepsItsFolderAndAPrefixUnderOneIsNotAddedAgain() {
    List<PathMapping.Prefix> remembered = List.of(new PathMapping.Prefix("s3://src/wh/t", REPLICA));
    SourcePrefixes prefixes =
        SourcePrefixes.of(REPLICA, List.of(), List.of(), remembered)
            .learn(
                version("s3://src/wh/t", Map.of("write.data.path", "s3://src/wh/t/custom")),
                "v3.metadata.json");
    assertThat(prefixes.learned()).isEqualTo(remembered);
    assertThat(prefixes.mapping().map("s3://src/wh/t/custom/a.parquet"))
        .isEqualTo(REPLICA + "/custom/a.parquet");
  }

  @Test
  void aPrefixSpelledWithAnotherS3SchemeIsTheSamePrefixAndAllowedUnderItsRoot() {
    SourcePrefixes prefixes =
        SourcePrefixes.of(REPLICA, List.of(), List.of("s3://src/wh"), List.of())
            .learn(version("s3a://src/wh/t", Map.of()), "v1.metadata.json")
            .learn(
                version("s3://src/wh/t", Map.of("write.data.path", "s3n://src/wh/t/data")),
                "v2.metadata.json");
    assertThat(prefixes.learned())
        .containsExactly(new PathMapping.Prefix("s3a://src/wh/t", REPLICA));
    assertThat(prefixes.mapping().map("s3://src/wh/t/data/a.parquet"))
        .isEqualTo(REPLICA + "/data/a.parquet");
    assertThat(prefixes.mapping().map("s3a://src/wh/t/data/b.parquet"))
        .isEqualTo(REPLICA + "/data/b.parquet");
  }

  @Test
  void withAllowedRootsADeclaredPathOutsideThemIsRefusedAndAnEarlierOneSkipped() {
    SourcePrefixes prefixes =
        SourcePrefixes.of(REPLICA, List.of(), List.of("s3://src/wh/t"), List.of());
    TableMetadata intruding =
        version("s3://src/wh/t", Map.of("write.data.path", "s3://src/wh/other/data"));
    assertThatThrownBy(() -> prefixes.learn(intruding, "s3://src/wh/t/metadata/v2.metadata.json"))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessage(
            "Cannot map path s3://src/wh/other/data (write.data.path in table metadata"
                + " s3://src/wh/t/metadata/v2.metadata.json): it is outside the mapping");
    assertThat(
            prefixes.learnEarlier(intruding, "s3://src/wh/t/metadata/v2.metadata.json").learned())
        .containsExactly(new PathMapping.Prefix("s3://src/wh/t", REPLICA));
  }

  @Test
  void explicitPrefixesComeFirstAndAreNotRemembered() {
    List<PathMapping.Prefix> explicit =
        List.of(new PathMapping.Prefix("s3://data-a", "s3://replica-data/a"));
    SourcePrefixes prefixes =
        SourcePrefixes.of(REPLICA, explicit, List.of(), List.of())
            .learn(
                version("s3://src/wh/t", Map.of("write.data.path", "s3://data-a/t")),
                "v1.metadata.json");
    assertThat(prefixes.learned())
        .containsExactly(new PathMapping.Prefix("s3://src/wh/t", REPLICA));
    assertThat(prefixes.mapping().map("s3://data-a/t/x.parquet"))
        .isEqualTo("s3://replica-data/a/t/x.parquet");
  }

  @Test
  void aReplicaMadeBeforePrefixesWereKeptKeepsItsLayout() {
    SourcePrefixes prefixes =
        SourcePrefixes.of(REPLICA, List.of(), List.of(), List.of())
            .learnFormerLayout(
                version("s3://src/wh/t", Map.of("write.data.path", "s3://data-a/t")));
    assertThat(prefixes.learned())
        .containsExactlyInAnyOrder(
            new PathMapping.Prefix("s3://src/wh/t", REPLICA),
            new PathMapping.Prefix("s3://data-a/t", REPLICA + "/data"));
  }

  private static String hash(String prefix) {
    String name = SourcePrefixes.folderName(prefix);
    return name.substring(name.lastIndexOf('-') + 1);
  }

  static TableMetadata version(String location, Map<String, String> properties) {
    ObjectNode json = TableMetadataParser.mapper().createObjectNode();
    json.put("format-version", 2);
    json.put("table-uuid", "9c12d441-03fe-4693-9a96-a0705ddf69c1");
    json.put("location", location);
    json.put("last-sequence-number", 0);
    json.put("last-updated-ms", 1);
    json.put("last-column-id", 1);
    json.put("current-schema-id", 0);
    json.putArray("schemas")
        .addObject()
        .put("type", "struct")
        .put("schema-id", 0)
        .putArray("fields");
    json.put("default-spec-id", 0);
    json.putArray("partition-specs").addObject().put("spec-id", 0).putArray("fields");
    json.put("last-partition-id", 999);
    json.put("default-sort-order-id", 0);
    json.putArray("sort-orders").addObject().put("order-id", 0).putArray("fields");
    ObjectNode props = json.putObject("properties");
    properties.forEach(props::put);
    return TableMetadataParser.fromJson(json, "test");
  }

  @Test
  void aFailBackSendsTheFilesOfAMappedDataRootBackToTheOriginalFolderTheyCameFrom() {
    List<PathMapping.Prefix> mapped =
        List.of(
            new PathMapping.Prefix("s3://prod/wh/t/data", "s3://dr-data/wh/t"),
            new PathMapping.Prefix("s3://prod/ext/t", "s3://dr-data/ext/t"),
            new PathMapping.Prefix("s3://prod/wh/other/data", "s3://dr/wh/other/data"));
    TableMetadata original =
        version("s3://prod/wh/t", Map.of("write.metadata.path", "s3://prod/ext/t"));

    List<PathMapping.Prefix> returning = SourcePrefixes.returning(mapped, original);

    // another table's folder is never a fail-back's to write into
    assertThat(returning)
        .containsExactly(
            new PathMapping.Prefix("s3://dr-data/wh/t", "s3://prod/wh/t/data"),
            new PathMapping.Prefix("s3://dr-data/ext/t", "s3://prod/ext/t"));
    PathMapping mapping =
        SourcePrefixes.of("s3://prod/wh/t", returning, List.of(), List.of()).mapping();
    assertThat(mapping.map("s3a://dr-data/wh/t/x=1/f.parquet"))
        .isEqualTo("s3://prod/wh/t/data/x=1/f.parquet");
  }
}
