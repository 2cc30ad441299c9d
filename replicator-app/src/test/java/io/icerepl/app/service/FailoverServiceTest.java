package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.merge.ReplicaProperties;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Failover and fail-back through the service's API on the embedded S3, with tables committed by the
 * Iceberg library: promote needs the token; safe mode refuses a replica that lost a data file;
 * promote now makes the replica a table the Iceberg library commits to, which the service no longer
 * replicates into when the old source commits again; fail-back then makes the original hold every
 * promoted snapshot and keeps the old source's orphan commit under the tag the answer names. The
 * steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverServiceTest {
  private static final String ORDERS = "/api/replications/a/ns/orders";
  private static final String LINES = "/api/replications/a/ns/lines";
  private static final String ORDERS_SOURCE = "s3://source/warehouse/ns/orders";
  private static final String ORDERS_REPLICA = "s3://replica/warehouse/ns/orders";

  private static ServiceOnS3 fixture;
  private static RunningService service;
  private static S3FileIO io;
  private static Table orders;
  private static Table lines;
  private static long orphanId;
  private static List<String> orphanRows;

  @BeforeAll
  static void start() {
    fixture = new ServiceOnS3();
    io = fixture.io();
    orders = fixture.warehouse.createSample("ns", "orders");
    ServiceOnS3.append(orders, "a", 3);
    ServiceOnS3.append(orders, "b", 2);
    lines = fixture.warehouse.createSample("ns", "lines");
    ServiceOnS3.append(lines, "a", 2);
    service = fixture.start(Map.of());
    fixture.awaitState(ORDERS, "IN_SYNC");
    fixture.awaitState(LINES, "IN_SYNC");
  }

  @AfterAll
  static void stop() {
    io.close();
    fixture.close();
  }

  @Test
  @Order(1)
  void promoteAndFailbackAnswerOnlyWithTheToken() {
    HttpJson anonymous = service.http.withToken(null);

    assertThat(anonymous.post(ORDERS + "/promote?mode=now").status()).isEqualTo(401);
    assertThat(anonymous.post(ORDERS + "/failback").status()).isEqualTo(401);
    assertThat(service.http.get(ORDERS).json().path("state").asText()).isEqualTo("IN_SYNC");
    assertThat(HintedReplica.open(io, ORDERS_REPLICA).properties())
        .containsEntry(ReplicaProperties.READ_ONLY, "true");
    // with the token the same endpoints answer, here refusing what they were asked
    HttpJson.Response mode = service.http.post(ORDERS + "/promote?mode=later");
    assertThat(mode.status()).isEqualTo(400);
    assertThat(mode.json().path("error").asText())
        .isEqualTo("Cannot promote with mode later: expected safe or now");
    // without a mode nothing is promoted: a probe must never become a failover
    Map<String, String> replicaBefore = fixture.objects("replica", "warehouse/ns/orders/");
    HttpJson.Response noMode = service.http.post(ORDERS + "/promote");
    assertThat(noMode.status()).as(noMode.body()).isEqualTo(400);
    assertThat(noMode.json().path("error").asText())
        .isEqualTo(
            "Cannot promote ns/orders on a: give mode=safe (replicate what the source still"
                + " serves, verify, then promote) or mode=now (promote what the replica holds);"
                + " nothing was written");
    assertThat(fixture.objects("replica", "warehouse/ns/orders/")).isEqualTo(replicaBefore);
    assertThat(service.http.get(ORDERS).json().path("state").asText()).isEqualTo("IN_SYNC");
    HttpJson.Response prefix = service.http.post(ORDERS + "/failback?tagPrefix=a%20b");
    assertThat(prefix.status()).isEqualTo(400);
    assertThat(prefix.json().path("error").asText())
        .isEqualTo(
            "Cannot fail back ns/orders on a: the tag prefix must be 1 to 100 letters, digits,"
                + " '.', '_' or '-'");
  }

  @Test
  @Order(2)
  void safeModeRefusesAReplicaMissingADataFileAndNamesTheProblem() {
    String deleted = fixture.deleteOneReplicaDataFile("ns/lines");

    HttpJson.Response response = service.http.post(LINES + "/promote?mode=safe");

    assertThat(response.status()).as(response.body()).isEqualTo(409);
    JsonNode body = response.json();
    assertThat(body.path("error").asText())
        .startsWith(
            "Cannot promote table s3://replica/warehouse/ns/lines: verify found 1 problems in ");
    assertThat(body.path("problems")).hasSize(1);
    assertThat(body.path("problems").get(0).asText())
        .startsWith("data file " + deleted + " (manifest ")
        .endsWith(": does not exist");
    assertThat(service.http.get(LINES).json().path("state").asText()).isNotEqualTo("PROMOTED");
    assertThat(HintedReplica.open(io, "s3://replica/warehouse/ns/lines").properties())
        .as("the replica is left as it was")
        .containsEntry(ReplicaProperties.READ_ONLY, "true")
        .doesNotContainKey(ReplicaProperties.EPOCH);
  }

  @Test
  @Order(3)
  void aReplicaNotPromotedIsNotFailedBackIntoItsLiveSource() {
    HttpJson.Response response = service.http.post(LINES + "/failback");

    assertThat(response.status()).as(response.body()).isEqualTo(409);
    assertThat(response.json().path("error").asText())
        .isEqualTo(
            "Cannot fail back table s3://replica/warehouse/ns/lines into"
                + " s3://source/warehouse/ns/lines: s3://replica/warehouse/ns/lines is a replica,"
                + " not promoted: nothing to fail back; nothing was written");
    try (S3Client client = fixture.s3.client()) {
      assertThat(
              client
                  .listObjectsV2(b -> b.bucket("source").prefix("warehouse/ns/lines/metadata/"))
                  .contents())
          .as("the source holds only the files its writer wrote")
          .extracting(o -> o.key().substring(o.key().lastIndexOf('/') + 1))
          .noneMatch(name -> name.startsWith("v") || name.equals("version-hint.text"));
    }
    assertThat(service.http.get(LINES).json().path("lastFailback").isNull()).isTrue();
  }

  @Test
  @Order(4)
  void promoteNowMakesAPrimaryTheLibraryCommitsToAndTheServiceNoLongerReplicatesInto() {
    orders.refresh();
    Map<Long, List<String>> sourceRows = new LinkedHashMap<>();
    for (Snapshot snapshot : orders.snapshots()) {
      sourceRows.put(snapshot.snapshotId(), SourceTable.rows(orders, snapshot.snapshotId()));
    }

    // a request decided on a replica version the replica has left is refused, writing nothing
    String replicaFile = service.http.get(ORDERS).json().path("replicaMetadataFile").asText();
    long decidedOn =
        Long.parseLong(
            replicaFile.substring(
                replicaFile.lastIndexOf("/v") + 2, replicaFile.indexOf(".metadata.json")));
    HttpJson.Response stale =
        service.http.post(ORDERS + "/promote?mode=now&replicaVersion=" + (decidedOn - 1));
    assertThat(stale.status()).as(stale.body()).isEqualTo(409);
    assertThat(stale.json().path("error").asText())
        .isEqualTo(
            "Cannot promote table "
                + ORDERS_REPLICA
                + ": the request was decided on replica version "
                + (decidedOn - 1)
                + ", but the replica is at version "
                + decidedOn
                + " (it moved since: ask its status again); nothing was written");
    assertThat(service.http.get(ORDERS).json().path("state").asText()).isEqualTo("IN_SYNC");

    HttpJson.Response response =
        service.http.post(ORDERS + "/promote?mode=now&replicaVersion=" + decidedOn);

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    JsonNode promotion = response.json();
    assertThat(promotion.path("status").asText()).isEqualTo("promoted");
    assertThat(promotion.path("epoch").asLong()).isEqualTo(1);
    assertThat(promotion.path("mode").asText()).isEqualTo("now");
    long version = promotion.path("promotedVersion").asLong();
    assertThat(promotion.path("metadataFile").asText())
        .isEqualTo(ORDERS_REPLICA + "/metadata/v" + version + ".metadata.json");
    String sourceFile = S3Warehouse.metadataFile(orders);
    assertThat(promotion.path("lastSourceMetadataFile").asText())
        .isEqualTo(sourceFile.substring(sourceFile.lastIndexOf('/') + 1));
    assertThat(Instant.parse(promotion.path("lastSourceCommitAt").asText()))
        .isEqualTo(
            Instant.ofEpochMilli(
                ((org.apache.iceberg.BaseTable) orders)
                    .operations()
                    .current()
                    .lastUpdatedMillis()));
    assertThat(promotion.path("snapshots").asInt()).isEqualTo(2);
    assertThat(promotion.path("head").asLong()).isEqualTo(orders.currentSnapshot().snapshotId());
    JsonNode promotedStatus = service.http.get(ORDERS).json();
    assertThat(promotedStatus.path("state").asText()).isEqualTo("PROMOTED");
    // a primary now: its status shows the version the promotion wrote, and no replication lag
    assertThat(promotedStatus.path("replicaMetadataFile").asText())
        .isEqualTo(promotion.path("metadataFile").asText());
    assertThat(promotedStatus.path("lagSeconds").asLong()).isZero();
    assertThat(promotedStatus.path("lagSnapshots").asLong()).isZero();

    // a retry of the same request is answered as a rerun; one decided on another version is not
    HttpJson.Response again =
        service.http.post(ORDERS + "/promote?mode=now&replicaVersion=" + decidedOn);
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.json().path("status").asText()).isEqualTo("already promoted");
    assertThat(again.json().path("promotedVersion").asLong()).isEqualTo(version);
    HttpJson.Response replayed =
        service.http.post(ORDERS + "/promote?mode=now&replicaVersion=" + version);
    assertThat(replayed.status()).as(replayed.body()).isEqualTo(409);
    assertThat(replayed.json().path("error").asText())
        .contains(
            "the request was decided on replica version "
                + version
                + ", but the replica was promoted from version "
                + decidedOn);

    Table promoted = HintedReplica.openForWrites(io, ORDERS_REPLICA);
    assertThat(promoted.properties())
        .doesNotContainKey(ReplicaProperties.READ_ONLY)
        .containsEntry(ReplicaProperties.EPOCH, "1");
    sourceRows.forEach(
        (id, rows) ->
            assertThat(SourceTable.rows(promoted, id)).as("snapshot %s", id).isEqualTo(rows));
    ServiceOnS3.append(promoted, "c", 3);
    long written = promoted.currentSnapshot().snapshotId();

    // the old source commits after the failover: never replicated over the promoted table
    ServiceOnS3.append(orders, "d", 2);
    orphanId = orders.currentSnapshot().snapshotId();
    orphanRows = SourceTable.rows(orders, orphanId);
    fixture.awaitState(ORDERS, "OLD_PRIMARY_WROTE");
    assertThat(service.http.get(ORDERS).json().path("lastError").asText())
        .contains("the old primary wrote after failover");
    // split brain is a health status and a gauge operators alert on, not UP
    JsonNode health = service.http.get("/actuator/health").json();
    assertThat(health.path("status").asText()).as(health.toString()).isEqualTo("SPLIT_BRAIN");
    assertThat(health.path("components").path("replication").path("details").path("splitBrain"))
        .extracting(JsonNode::asText)
        .containsExactly("a/ns/orders");
    assertThat(service.http.get("/actuator/prometheus").body())
        .contains("replicator_split_brain_tables 1.0");
    Table replica = HintedReplica.open(io, ORDERS_REPLICA);
    assertThat(replica.currentSnapshot().snapshotId()).isEqualTo(written);
    assertThat(replica.snapshot(orphanId)).isNull();
    // still a primary whatever its old source does: its current version, written by its own
    // writers, and no lag behind a source it no longer follows
    JsonNode status = service.http.get(ORDERS).json();
    assertThat(status.path("replicaMetadataFile").asText())
        .isEqualTo(S3Warehouse.metadataFile(replica));
    assertThat(status.path("lagSeconds").asLong()).isZero();
    assertThat(status.path("lagSnapshots").asLong()).isZero();
  }

  @Test
  @Order(5)
  void failbackOntoThePromotedTableItselfOrWithAForgedLineIsRefusedAndWritesNothing() {
    Map<String, String> before = fixture.objects("replica", "warehouse/ns/orders/");
    Map<String, String> originalBefore = fixture.objects("source", "warehouse/ns/orders/metadata/");

    // the promoted table itself, spelled as Spark through S3A spells it
    HttpJson.Response itself =
        service.http.post(ORDERS + "/failback?oldSource=s3a://replica/warehouse/ns/orders/");
    assertThat(itself.status()).as(itself.body()).isEqualTo(409);
    assertThat(itself.json().path("error").asText())
        .isEqualTo(
            "Cannot fail back table s3://replica/warehouse/ns/orders into"
                + " s3a://replica/warehouse/ns/orders/: it overlaps the promoted table; nothing"
                + " was written");
    // a line break would plant a log line and come back in the answer: refused as no location
    HttpJson.Response forged =
        service.http.post(
            ORDERS + "/failback?oldSource=s3://source/x%0A2026-01-01%20INFO%20forged");
    assertThat(forged.status()).as(forged.body()).isEqualTo(400);
    assertThat(forged.body()).doesNotContain("forged");
    assertThat(forged.json().path("error").asText())
        .isEqualTo(
            "Cannot fail back ns/orders on a: A table location must not hold control characters;"
                + " this one has U+000A at position 13");

    // a request decided on another promotion than the table's
    HttpJson.Response otherEpoch = service.http.post(ORDERS + "/failback?epoch=2");
    assertThat(otherEpoch.status()).as(otherEpoch.body()).isEqualTo(409);
    assertThat(otherEpoch.json().path("error").asText())
        .isEqualTo(
            "Cannot fail back table s3://replica/warehouse/ns/orders into "
                + ORDERS_SOURCE
                + ": the request was decided on promotion epoch 2, but the table is at epoch 1 (it"
                + " moved since: ask its status again); nothing was written");

    assertThat(fixture.objects("replica", "warehouse/ns/orders/")).isEqualTo(before);
    assertThat(fixture.objects("source", "warehouse/ns/orders/metadata/"))
        .as("the original")
        .isEqualTo(originalBefore);
    assertThat(service.http.get(ORDERS).json().path("state").asText())
        .isEqualTo("OLD_PRIMARY_WROTE");
    assertThat(service.http.get(ORDERS).json().path("lastFailback").isNull()).isTrue();
  }

  @Test
  @Order(6)
  void failbackMakesTheOriginalHoldEveryPromotedSnapshotAndKeepsTheOrphanUnderItsTag() {
    HttpJson.Response response =
        service.http.post(
            ORDERS + "/failback?tagPrefix=dr-orphan&epoch=1",
            "{\"oldSource\": \"" + ORDERS_SOURCE + "\"}");

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    JsonNode summary = response.json();
    assertThat(summary.path("originalLocation").asText()).isEqualTo(ORDERS_SOURCE);
    assertThat(summary.path("orphanSnapshotIds")).hasSize(1);
    assertThat(summary.path("orphanSnapshotIds").get(0).asLong()).isEqualTo(orphanId);
    List<String> tags = new ArrayList<>();
    summary.path("orphanTags").fieldNames().forEachRemaining(tags::add);
    assertThat(tags).hasSize(1);
    String tag = tags.get(0);
    assertThat(tag).matches("dr-orphan-\\d{8}T\\d{6}Z");
    assertThat(summary.path("orphanTags").path(tag).asLong()).isEqualTo(orphanId);
    JsonNode last = service.http.get(ORDERS).json().path("lastFailback");
    assertThat(last.path("originalLocation").asText()).isEqualTo(ORDERS_SOURCE);
    assertThat(last.path("orphanTags").path(tag).asLong()).isEqualTo(orphanId);

    Table primary = HintedReplica.open(io, ORDERS_REPLICA);
    Table original = HintedReplica.open(io, ORDERS_SOURCE);
    assertThat(original.currentSnapshot().snapshotId())
        .isEqualTo(primary.currentSnapshot().snapshotId());
    for (Snapshot snapshot : primary.snapshots()) {
      assertThat(SourceTable.rows(original, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(primary, snapshot.snapshotId()));
    }
    for (HistoryEntry entry : primary.history()) {
      assertThat(SnapshotUtil.snapshotIdAsOfTime(original, entry.timestampMillis()))
          .as("as of %s", entry.timestampMillis())
          .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(primary, entry.timestampMillis()));
    }
    primary
        .refs()
        .forEach(
            (name, ref) ->
                assertThat(original.refs().get(name).snapshotId())
                    .as("ref %s", name)
                    .isEqualTo(ref.snapshotId()));
    assertThat(original.refs().get(tag).isTag()).isTrue();
    assertThat(original.refs().get(tag).snapshotId()).isEqualTo(orphanId);
    assertThat(SourceTable.rows(original, orphanId)).isEqualTo(orphanRows);
    for (Snapshot snapshot : original.snapshots()) {
      for (DataFile file : snapshot.addedDataFiles(io)) {
        assertThat(file.location())
            .as("snapshot %s", snapshot.snapshotId())
            .startsWith(ORDERS_SOURCE + "/");
      }
    }

    // the roles are reversed, and the status says so: the promoted table is the primary and the
    // original its replica; no split brain is left to alert on
    fixture.awaitState(ORDERS, "FAILED_BACK");
    JsonNode status = service.http.get(ORDERS).json();
    assertThat(status.path("lastError").asText())
        .contains(ORDERS_SOURCE + " was failed back from it and is its read-only replica");
    assertThat(status.path("replicaMetadataFile").asText())
        .isEqualTo(S3Warehouse.metadataFile(primary));
    assertThat(status.path("lagSeconds").asLong()).isZero();
    JsonNode health = service.http.get("/actuator/health").json();
    assertThat(health.path("status").asText()).as(health.toString()).isEqualTo("UP");
    assertThat(health.path("components").path("replication").path("details").path("splitBrain"))
        .isEmpty();
    assertThat(service.http.get("/actuator/prometheus").body())
        .contains("replicator_split_brain_tables 0.0");

    // a writer left on the failed-back original is an old primary writing again
    Table stray = HintedReplica.openForWrites(io, ORDERS_SOURCE);
    ServiceOnS3.append(stray, "e", 1);
    fixture.awaitState(ORDERS, "OLD_PRIMARY_WROTE");
    assertThat(service.http.get("/actuator/health").json().path("status").asText())
        .isEqualTo("SPLIT_BRAIN");
  }
}
