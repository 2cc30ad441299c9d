package io.icerepl.app.badinput;

import static io.icerepl.app.badinput.Campaign.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bad-input campaign at service level, on the embedded S3 and SQS: each bad input makes its
 * table FAILED (or WAITING / DIVERGED, or its message ignored or dead-lettered) with its specific
 * error; the replica's objects stay byte for byte as they were; every message ends acknowledged or
 * in the dead-letter queue; and a healthy table under the same rule keeps replicating.
 *
 * <p>Shares one service with the other campaign class ({@link Campaign}). The same bad inputs
 * through the command line: {@code replicate.ValidationErrorTest}.
 */
class BadInputServiceTest {
  @BeforeAll
  static void startService() {
    Campaign.start();
  }

  @AfterAll
  static void releaseService() {
    Campaign.finished(BadInputServiceTest.class);
  }

  // --- metadata JSON -------------------------------------------------------------------------

  @Test
  void malformedMetadataJsonFailsTheTableNamingTheFile() {
    Table t = replicated("malformed_json");
    Map<String, String> before = replicaObjects("malformed_json");
    String file =
        commitRaw(t, "{\"format-version\": 2, \"location\": ".getBytes(StandardCharsets.UTF_8));

    awaitState("malformed_json", "FAILED", file, "malformed JSON");
    assertContained("malformed_json", before);
  }

  @Test
  void aMissingRequiredFieldFailsTheTableNamingTheField() {
    Table t = replicated("missing_field");
    Map<String, String> before = replicaObjects("missing_field");
    String file =
        commitEdited(
            t, json -> ((ObjectNode) json.withArray("snapshots").get(0)).remove("manifest-list"));

    awaitState(
        "missing_field", "FAILED", file, "missing required field 'manifest-list' in snapshot");
    assertContained("missing_field", before);
  }

  @Test
  void anUnknownFormatVersionFailsTheTable() {
    Table t = replicated("format_version");
    Map<String, String> before = replicaObjects("format_version");
    String file = commitEdited(t, json -> json.put("format-version", 4));

    awaitState(
        "format_version",
        "FAILED",
        "Cannot read table metadata " + file,
        "unsupported format-version 4");
    assertContained("format_version", before);
  }

  @Test
  void aChangedTableUuidAtTheSameLocationIsDivergedNamingBothUuids() {
    Table t = replicated("uuid_changed");
    Map<String, String> before = replicaObjects("uuid_changed");
    String oldUuid = t.uuid().toString();
    String newUuid = UUID.randomUUID().toString();
    String file = commitEdited(t, json -> json.put("table-uuid", newUuid));

    // the source was replaced: the table fails with the conflict (the replica itself is intact)
    awaitState(
        "uuid_changed",
        "FAILED",
        "Cannot replicate table metadata " + file,
        "its table-uuid " + newUuid + " differs from the replica's " + oldUuid,
        "the source table was replaced");
    assertContained("uuid_changed", before);
  }

  @Test
  void anEncryptedTableFailsTheTable() {
    Table t = replicated("encrypted");
    Map<String, String> before = replicaObjects("encrypted");
    commitEdited(
        t,
        json ->
            json.putArray("encryption-keys")
                .addObject()
                .put("key-id", "k")
                .put("encrypted-key-metadata", "AA=="));

    awaitState("encrypted", "FAILED", "encrypted tables are not supported");
    assertContained("encrypted", before);
  }

  @Test
  void metadataOverTheConfiguredLimitFailsTheTable() {
    Table t = replicated("too_large");
    Map<String, String> before = replicaObjects("too_large");
    t.updateProperties().set("padding", "x".repeat((int) MAX_METADATA_BYTES + 1024)).commit();
    publish(t);

    awaitState(
        "too_large",
        "FAILED",
        "Cannot read table metadata " + metadataFile(t),
        "larger than the configured limit of " + MAX_METADATA_BYTES + " bytes");
    assertContained("too_large", before);
  }

  @Test
  void twoMetadataFilesWithTheNewestVersionMakeTheTableWaitNamingBoth() {
    Table t = replicated("two_heads");
    Map<String, String> before = replicaObjects("two_heads");
    ObjectNode json = nextMetadataJson(t);
    String first = nextMetadataFile(t);
    String second = nextMetadataFile(t);
    put(SOURCE, key(first), json.toString().getBytes(StandardCharsets.UTF_8));
    put(
        SOURCE,
        key(second),
        json.put("last-updated-ms", json.get("last-updated-ms").asLong() + 1)
            .toString()
            .getBytes(StandardCharsets.UTF_8));
    publishKey(key(second));

    int version = version(first);
    awaitState(
        "two_heads",
        "WAITING",
        "version " + version + " is held by more than one file",
        first.substring(first.lastIndexOf('/') + 1),
        second.substring(second.lastIndexOf('/') + 1));
    assertContained("two_heads", before);
  }

  @Test
  void aGzipMetadataFileOverTheLimitOnceDecompressedFailsTheTable() throws Exception {
    Table t = replicated("gzip_bomb");
    Map<String, String> before = replicaObjects("gzip_bomb");
    ObjectNode json = nextMetadataJson(t);
    ((ObjectNode) json.get("properties")).put("padding", "x".repeat((int) MAX_METADATA_BYTES * 4));
    java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gz)) {
      out.write(JSON.writeValueAsBytes(json));
    }
    assertThat(gz.size()).as("compressed size").isLessThan((int) MAX_METADATA_BYTES / 8);
    String file = nextMetadataFile(t).replace(".metadata.json", ".gz.metadata.json");
    put(SOURCE, key(file), gz.toByteArray());
    publishKey(key(file));

    awaitState(
        "gzip_bomb",
        "FAILED",
        "Cannot read table metadata " + file,
        "larger than the configured limit of " + MAX_METADATA_BYTES + " bytes");
    assertContained("gzip_bomb", before);
  }

  @Test
  void metadataThatIsJsonButNotAnObjectFailsTheTable() {
    Table t = replicated("json_null");
    Map<String, String> before = replicaObjects("json_null");
    String file = commitRaw(t, "[]".getBytes(StandardCharsets.UTF_8));

    awaitState("json_null", "FAILED", "Cannot read table metadata " + file, "not a JSON object");
    assertContained("json_null", before);
  }

  @Test
  void aTableLocationMovedOutsideTheMappingFailsTheTable() {
    Table t = replicated("moved");
    Map<String, String> before = replicaObjects("moved");
    commitEdited(t, json -> json.put("location", "s3://source/elsewhere/ns/moved"));

    // a location outside the table's folder is refused as declared, before any file under it
    awaitState(
        "moved",
        "FAILED",
        "Cannot map path s3://source/elsewhere/ns/moved (location in table metadata",
        "it is outside the mapping",
        "the table may only name files under [s3://source/warehouse/ns/moved");
    assertContained("moved", before);
  }

  @Test
  void aCurrentSnapshotIdNamingNoSnapshotIsReportedAsDiverged() {
    Table t = replicated("dangling_current");
    Map<String, String> before = replicaObjects("dangling_current");
    String file =
        commitEdited(
            t,
            json -> {
              json.put("current-snapshot-id", 123456789L);
              ((ObjectNode) json.get("refs").get("main")).put("snapshot-id", 123456789L);
            });

    // only the source is at fault: FAILED, not DIVERGED
    awaitState(
        "dangling_current",
        "FAILED",
        "Cannot read table metadata " + file,
        "current-snapshot-id 123456789 is not among its snapshots");
    assertContained("dangling_current", before);
  }

  @Test
  void aMetadataFileWhoseVersionOverflowsIsNoVersionAndIsIgnored() {
    Table t = replicated("huge_version");
    Map<String, String> before = replicaObjects("huge_version");
    String current = metadataFile(t);
    // not a version by Iceberg's rules either (it parses versions as int): the head stays where it
    // was
    String file =
        current.substring(0, current.lastIndexOf('/') + 1)
            + "99999999999999999999-"
            + UUID.randomUUID()
            + ".metadata.json";
    put(SOURCE, key(file), nextMetadataJson(t).toString().getBytes(StandardCharsets.UTF_8));
    publishKey(key(file));

    awaitQueueDrained();
    healthyTableKeepsReplicating();
    JsonNode status = status("huge_version").orElseThrow();
    assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");
    assertThat(status.path("lastSourceMetadataFile").asText()).isEqualTo(current);
    assertThat(replicaObjects("huge_version")).isEqualTo(before);
  }

  @Test
  void aVersionHintThatIsNotANumberFailsTheTable() {
    Table t = replicated("bad_hint");
    Map<String, String> before = replicaObjects("bad_hint");
    append(t, 1);
    String current = metadataFile(t);
    String hint = current.substring(0, current.lastIndexOf('/') + 1) + "version-hint.text";
    put(SOURCE, key(hint), "not-a-number".getBytes(StandardCharsets.UTF_8));
    publishKey(key(hint));

    // stricter than Iceberg's HadoopTableOperations, which falls back to listing
    awaitState(
        "bad_hint",
        "FAILED",
        "Cannot resolve the current metadata of s3://source/warehouse/ns/bad_hint/metadata",
        "version-hint.text says 'not-a-number' but no such metadata file exists");
    assertContained("bad_hint", before);
  }

  // --- manifests, manifest lists, data files --------------------------------------------------

  @Test
  void aTruncatedManifestListFailsTheTable() {
    Table t = replicated("truncated_list");
    Map<String, String> before = replicaObjects("truncated_list");
    append(t, 2);
    String list = t.currentSnapshot().manifestListLocation();
    truncate(list);
    publish(t);

    awaitState("truncated_list", "FAILED", "Cannot read manifest list " + list);
    assertContained("truncated_list", before);
  }

  @Test
  void aTruncatedManifestFailsTheTable() {
    Table t = replicated("truncated_manifest");
    Map<String, String> before = replicaObjects("truncated_manifest");
    append(t, 2);
    String manifest = newManifest(t);
    truncate(manifest);
    publish(t);

    awaitState(
        "truncated_manifest",
        "FAILED",
        "manifest " + manifest + " is ",
        " bytes but its manifest list " + t.currentSnapshot().manifestListLocation() + " records ");
    assertContained("truncated_manifest", before);
  }

  @Test
  void aManifestWithFlippedBytesInItsEntriesFailsTheTable() {
    Table t = replicated("corrupt_manifest");
    Map<String, String> before = replicaObjects("corrupt_manifest");
    append(t, 2);
    String manifest = newManifest(t);
    byte[] bytes = read(SOURCE, key(manifest));
    // same length, header intact: the 32 bytes of the last data block before its 16-byte sync
    // marker inverted
    for (int i = bytes.length - 16 - 32; i < bytes.length - 16; i++) {
      bytes[i] = (byte) ~bytes[i];
    }
    put(SOURCE, key(manifest), bytes);
    publish(t);

    awaitState("corrupt_manifest", "FAILED", "Cannot read manifest " + manifest);
    assertContained("corrupt_manifest", before);
  }

  @Test
  void aManifestWithFlippedBytesInItsHeaderFailsTheTable() {
    Table t = replicated("corrupt_header");
    Map<String, String> before = replicaObjects("corrupt_header");
    append(t, 2);
    String manifest = newManifest(t);
    byte[] bytes = read(SOURCE, key(manifest));
    for (int i = bytes.length / 2; i < bytes.length / 2 + 64; i++) {
      bytes[i] = (byte) ~bytes[i];
    }
    put(SOURCE, key(manifest), bytes);
    publish(t);

    awaitState("corrupt_header", "FAILED", "Cannot read manifest " + manifest);
    assertContained("corrupt_header", before);
  }

  @Test
  void aManifestCutInsideItsEntriesFailsTheTable() {
    Table t = replicated("cut_entries");
    Map<String, String> before = replicaObjects("cut_entries");
    append(t, 2);
    String manifest = newManifest(t);
    byte[] bytes = read(SOURCE, key(manifest));
    // header intact: the sync marker and the end of the last data block cut off
    put(SOURCE, key(manifest), Arrays.copyOf(bytes, bytes.length - 24));
    publish(t);

    awaitState(
        "cut_entries",
        "FAILED",
        "manifest "
            + manifest
            + " is "
            + (bytes.length - 24)
            + " bytes but its manifest list "
            + t.currentSnapshot().manifestListLocation()
            + " records "
            + bytes.length);
    assertContained("cut_entries", before);
  }

  @Test
  void aManifestListNamingAMissingManifestFailsTheTable() {
    Table t = replicated("missing_manifest");
    Map<String, String> before = replicaObjects("missing_manifest");
    append(t, 2);
    String manifest = newManifest(t);
    delete(SOURCE, key(manifest));
    publish(t);

    awaitState(
        "missing_manifest",
        "FAILED",
        "manifest "
            + manifest
            + " named by manifest list "
            + t.currentSnapshot().manifestListLocation()
            + " is missing at the source");
    assertContained("missing_manifest", before);
  }

  @Test
  void aMissingDataFileFailsTheTableNamingFileAndManifest() {
    Table t = replicated("missing_data");
    Map<String, String> before = replicaObjects("missing_data");
    DataFile file = append(t, 2);
    delete(SOURCE, key(file.location()));
    publish(t);

    awaitState(
        "missing_data",
        "FAILED",
        "data file " + file.location(),
        "is missing at the source",
        "named by manifest");
    assertContained("missing_data", before);
  }

  // --- paths ---------------------------------------------------------------------------------

  @Test
  void aDataFileOutsideTheMappingFailsTheTable() {
    Table t = replicated("outside");
    Map<String, String> before = replicaObjects("outside");
    String outside = "s3://source/elsewhere/x.parquet";
    put(SOURCE, key(outside), new byte[] {1, 2, 3});
    t.newAppend().appendFile(foreignFile(outside)).commit();
    publish(t);

    awaitState(
        "outside", "FAILED", "Cannot map path " + outside, "outside every mapped source prefix");
    assertContained("outside", before);
  }

  @Test
  void aDataFilePathWithDotDotFailsTheTable() {
    Table t = replicated("dot_dot");
    Map<String, String> before = replicaObjects("dot_dot");
    String dotted = "s3://source/warehouse/ns/dot_dot/data/../../healthy/data/x.parquet";
    t.newAppend().appendFile(foreignFile(dotted)).commit();
    publish(t);

    awaitState("dot_dot", "FAILED", "Cannot map path " + dotted, "it has a '..' segment");
    assertContained("dot_dot", before);
  }

  // --- where a table's files may lie --------------------------------------------------------

  @Test
  void aTableWhoseMetadataNamesAnotherTablesFilesFailsAloneAndCopiesNothing() {
    // another table's metadata, copied: its location and every path in it are that table's
    String file =
        "s3://source/warehouse/ns/intruder/metadata/00001-" + UUID.randomUUID() + ".metadata.json";
    put(SOURCE, key(file), read(SOURCE, key(metadataFile(healthy))));
    publishKey(key(file));

    awaitState(
        "intruder",
        "FAILED",
        "Cannot map path s3://source/warehouse/ns/healthy (location in table metadata "
            + file
            + "): it is outside the mapping",
        "the table may only name files under [s3://source/warehouse/ns/intruder, ");
    assertContained("intruder", Map.of());
  }

  @Test
  void aWriteDataPathInAnotherBucketFailsTheTableAlone() {
    Table t = replicated("data_elsewhere");
    Map<String, String> before = replicaObjects("data_elsewhere");
    t.updateProperties().set("write.data.path", "s3://" + ELSEWHERE + "/data").commit();
    append(t, 2);
    publish(t);

    awaitState(
        "data_elsewhere",
        "FAILED",
        "Cannot map path s3://"
            + ELSEWHERE
            + "/data (write.data.path in table metadata s3://source/warehouse/ns/data_elsewhere/metadata/",
        "it is outside the mapping");
    assertContained("data_elsewhere", before);
  }

  @Test
  void aWriteDataPathUnderTheRulesAllowedPrefixReplicatesIntoAReplicaFolderOfItsOwn() {
    Table t =
        warehouse.create(
            "ns",
            "shared_data",
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2", "write.data.path", ALLOWED + "/ns/shared_data"));
    append(t, 3);
    publish(t);

    awaitInSync("shared_data");
    java.util.List<String> replica = keys(REPLICA, "warehouse/ns/shared_data/");
    assertThat(replica)
        .anyMatch(
            k ->
                k.startsWith("warehouse/ns/shared_data/data/shared-data-warehouse-ns-shared_data-")
                    && k.endsWith(".parquet"));
    assertThat(replica)
        .filteredOn(k -> k.endsWith(".metadata.json"))
        .isNotEmpty()
        .allSatisfy(
            k ->
                assertThat(new String(read(REPLICA, k), StandardCharsets.UTF_8))
                    .doesNotContain(ALLOWED));
  }

  @Test
  void anEventForAFolderInsideATableTriggersThatTableNotANewOne() {
    Table t = replicated("nests");
    String nested =
        "s3://source/warehouse/ns/nests/data/inner/metadata/00001-"
            + UUID.randomUUID()
            + ".metadata.json";
    put(SOURCE, key(nested), read(SOURCE, key(metadataFile(t))));
    append(t, 2); // not published: only the nested event can trigger the table
    String head = metadataFile(t);
    publishKey(key(nested));

    await()
        .atMost(PATIENCE)
        .pollInterval(java.time.Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              JsonNode status = status("nests").orElseThrow();
              assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");
              assertThat(status.path("lastSourceMetadataFile").asText()).isEqualTo(head);
            });
    awaitQueueDrained();
    assertThat(status("nests/data/inner")).isEmpty();
    assertThat(keys(REPLICA, "warehouse/ns/nests/data/inner/")).isEmpty();
  }

  // --- the replica side ----------------------------------------------------------------------

  @Test
  void aTargetHoldingATableTheReplicatorDidNotWriteIsDivergedAndLeftAlone() {
    try (S3Warehouse replicaWarehouse =
        new S3Warehouse(
            "s3://replica/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY)) {
      Table other =
          replicaWarehouse.create(
              "ns",
              "occupied",
              SCHEMA,
              PartitionSpec.unpartitioned(),
              Map.of("format-version", "2"));
      append(other, 1);
    }
    Map<String, String> before = replicaObjects("occupied");
    Table t = create("occupied");
    append(t, 2);
    publish(t);

    awaitState("occupied", "DIVERGED", "it already holds a table the replicator did not write");
    assertContained("occupied", before);
  }

  @Test
  void aReplicaVersionWrittenBehindTheServicesBackIsReportedAndNeverOverwritten() throws Exception {
    Table t = replicated("foreign_version");
    String folder = "warehouse/ns/foreign_version/metadata/";
    int version =
        Integer.parseInt(
            new String(read(REPLICA, folder + "version-hint.text"), StandardCharsets.UTF_8).trim());
    // another writer commits the next version into the replica, as an Iceberg writer would:
    // the table's properties (the replicator's among them) carried over, one of its own added
    ObjectNode foreign =
        (ObjectNode) JSON.readTree(read(REPLICA, folder + "v" + version + ".metadata.json"));
    ((ObjectNode) foreign.get("properties")).put("written-by", "someone-else");
    foreign.put("last-updated-ms", foreign.get("last-updated-ms").asLong() + 1);
    String foreignKey = folder + "v" + (version + 1) + ".metadata.json";
    put(REPLICA, foreignKey, JSON.writeValueAsBytes(foreign));
    Map<String, String> before = replicaObjects("foreign_version");
    append(t, 2);
    publish(t);

    awaitState("foreign_version", "DIVERGED", "v" + (version + 1) + ".metadata.json");
    assertContained("foreign_version", before);
  }

  @Test
  void aReplicaVersionWithoutTheReplicatorsPropertiesIsDivergedAndLeftAlone() throws Exception {
    Table t = replicated("foreign_plain");
    String folder = "warehouse/ns/foreign_plain/metadata/";
    int version =
        Integer.parseInt(
            new String(read(REPLICA, folder + "version-hint.text"), StandardCharsets.UTF_8).trim());
    ObjectNode foreign =
        (ObjectNode) JSON.readTree(read(REPLICA, folder + "v" + version + ".metadata.json"));
    foreign.putObject("properties").put("written-by", "someone-else");
    String foreignKey = folder + "v" + (version + 1) + ".metadata.json";
    put(REPLICA, foreignKey, JSON.writeValueAsBytes(foreign));
    Map<String, String> before = replicaObjects("foreign_plain");
    append(t, 2);
    publish(t);

    awaitState(
        "foreign_plain",
        "DIVERGED",
        "it already holds a table the replicator did not write",
        "v" + (version + 1) + ".metadata.json");
    assertContained("foreign_plain", before);
  }

  // --- helpers -------------------------------------------------------------------------------

  private static DataFile foreignFile(String path) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(3)
        .withRecordCount(1)
        .build();
  }

  /** The manifest the current snapshot added. */
  private static String newManifest(Table t) {
    long snapshot = t.currentSnapshot().snapshotId();
    for (ManifestFile m : t.currentSnapshot().allManifests(t.io())) {
      if (m.snapshotId() != null && m.snapshotId() == snapshot) {
        return m.path();
      }
    }
    throw new AssertionError("no manifest added by snapshot " + snapshot);
  }

  private static void truncate(String location) {
    byte[] bytes = read(SOURCE, key(location));
    put(SOURCE, key(location), Arrays.copyOf(bytes, bytes.length / 2));
  }
}
