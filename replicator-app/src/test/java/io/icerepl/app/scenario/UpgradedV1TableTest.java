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
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables that began as v1: upgraded to v2 and v3 with the v1 snapshots still in their history (no
 * sequence numbers), and metadata from before Iceberg 0.11 (a single {@code schema} and {@code
 * partition-spec}, snapshots with embedded {@code manifests} and no summary).
 */
class UpgradedV1TableTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @Test
  void aV1TableUpgradedToV2AndV3ReplicatesAtEveryStageAndAcrossTheUpgrades(@TempDir Path dir) {
    ScenarioTable source =
        ScenarioTable.create(
            "V1_UPGRADED_TO_V2_AND_V3",
            dir.resolve("source").toUri().toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "1"));
    String incremental = dir.resolve("incremental").toUri().toString();

    // v1: appends and an overwrite
    DataFile f1 = source.append(source.row(1, "a", "x"), source.row(2, "b", "x")).get(0);
    DataFile f2 = source.append(source.row(3, "c", "y"), source.row(4, "d", "y")).get(0);
    DataFile f1b = source.writeDataFile(List.of(source.row(1, "a2", "x"), source.row(2, "b", "x")));
    source.table().newOverwrite().deleteFile(f1).addFile(f1b).commit();
    replicateStage(source, dir, "v1", incremental, 1);

    // v2: position deletes on top of the v1 history
    source.table().updateProperties().set(TableProperties.FORMAT_VERSION, "2").commit();
    source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, f2, 0));
    DataFile f3 = source.append(source.row(5, "e", "z"), source.row(6, "f", "z")).get(0);
    replicateStage(source, dir, "v2", incremental, 2);

    // v3: deletion vectors
    source.table().updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
    source.commitDeletes(source.writeDeletionVectors(Map.of(f3, new long[] {1})));
    source.append(source.row(7, "g", "x"));
    replicateStage(source, dir, "v3", incremental, 3);
  }

  /** Backfills a fresh replica of the stage, and brings the incremental replica up to it. */
  private void replicateStage(
      ScenarioTable source, Path dir, String stage, String incremental, int formatVersion) {
    source.record();
    TableMetadata current = IncrementalReplicationTest.metadata(source.table());
    assertThat(current.formatVersion()).isEqualTo(formatVersion);
    String backfill = dir.resolve("backfill-" + stage).toUri().toString();
    Replication.replicate(source.location(), backfill);
    verifier.verify(source, backfill);
    Replication.replicate(source.location(), incremental);
    verifier.verify(source, incremental);
  }

  @Test
  void preIceberg011MetadataWithEmbeddedManifestsReplicatesToAReadableReplica(@TempDir Path dir)
      throws Exception {
    ScenarioTable source =
        ScenarioTable.create(
            "PRE_0_11_V1",
            dir.resolve("source").toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "1"));
    source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));
    List<DataFile> second = source.append(source.row(3, "c", "x"), source.row(4, "d", "z"));
    source.table().newDelete().deleteFile(second.get(0)).commit();
    writeAsPreIceberg011(source, dir.resolve("source/metadata"));
    source.record();
    String target = dir.resolve("replica").toUri().toString();

    Replication.replicate(source.location(), target);

    verifier.verify(source, target);
    JsonNode replica = JSON.readTree(Replication.versionFiles(target).get(0).toFile());
    assertThat(replica.get("schemas")).hasSize(1);
    assertThat(replica.get("current-schema-id").asInt()).isZero();
    assertThat(replica.get("partition-specs")).hasSize(1);
    assertThat(replica.get("sort-orders")).hasSize(1);
    assertThat(replica.get("snapshots").get(0).has("manifests")).isTrue();
  }

  /**
   * Commits the table's current state again as metadata written before Iceberg 0.11: only {@code
   * schema} and {@code partition-spec}, no refs, and every snapshot with its manifests embedded
   * (the manifests Iceberg wrote) and no summary.
   */
  private static void writeAsPreIceberg011(ScenarioTable source, Path metadataDir)
      throws Exception {
    Table table = source.table();
    TableMetadata current = IncrementalReplicationTest.metadata(table);
    int version =
        Integer.parseInt(Files.readString(metadataDir.resolve("version-hint.text")).trim());
    ObjectNode json =
        (ObjectNode) JSON.readTree(metadataDir.resolve("v" + version + ".metadata.json").toFile());
    for (String field :
        List.of(
            "schemas",
            "current-schema-id",
            "partition-specs",
            "default-spec-id",
            "last-partition-id",
            "sort-orders",
            "default-sort-order-id",
            "refs",
            "statistics",
            "partition-statistics")) {
      json.remove(field);
    }
    ((ObjectNode) json.get("schema")).remove("schema-id");
    for (JsonNode node : json.get("snapshots")) {
      ObjectNode snapshot = (ObjectNode) node;
      Snapshot parsed = table.snapshot(snapshot.get("snapshot-id").asLong());
      ArrayNode manifests = JSON.createArrayNode();
      for (ManifestFile manifest : parsed.allManifests(table.io())) {
        manifests.add(manifest.path());
      }
      snapshot.remove(List.of("manifest-list", "summary", "schema-id"));
      snapshot.set("manifests", manifests);
    }
    json.withArray("metadata-log")
        .addObject()
        .put("timestamp-ms", json.get("last-updated-ms").asLong())
        .put("metadata-file", current.metadataFileLocation());
    json.put("last-updated-ms", System.currentTimeMillis());
    Files.write(
        metadataDir.resolve("v" + (version + 1) + ".metadata.json"), JSON.writeValueAsBytes(json));
    Files.writeString(metadataDir.resolve("version-hint.text"), Integer.toString(version + 1));
    assertThat(IncrementalReplicationTest.metadata(source.table()).snapshots())
        .allSatisfy(s -> assertThat(s.manifestListLocation()).isNull());
  }
}
