package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.merge.group.CutTags;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A replication group of two tables written in lockstep by the Iceberg library (each batch
 * committed to {@code orders}, then to {@code order_items}, its rows in a category named after the
 * batch), replicated by the service on the embedded S3. The group's cut names, for each replica,
 * the snapshot Iceberg's own time travel finds on the source at that moment, and the replicas read
 * there hold the same batches; while one table's replication fails, the cut stays where that table
 * was last known replicated, and the other replica, read at the cut, does not run ahead of it. The
 * cut is tagged on both replicas: read at the group's cut tag with the Iceberg library, they hold
 * the same batches, each the source's snapshot of the tag's moment.
 */
class GroupCutServiceTest {
  private static final String GROUP = "/api/groups/sales";

  @Test
  void theCutReadsBothReplicasAtOneMomentAndAFailingTableHoldsItBack() throws Exception {
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      Table orders = fixture.warehouse.createSample("sales", "orders");
      Table items = fixture.warehouse.createSample("sales", "order_items");
      for (int batch = 1; batch <= 3; batch++) {
        ServiceOnS3.append(orders, "batch-" + batch, 2);
        ServiceOnS3.append(items, "batch-" + batch, 3);
      }
      RunningService service =
          fixture.start(
              Map.of(
                  "replicator.settle-time", "PT0.2S",
                  "replicator.groups[0].name", "sales",
                  "replicator.groups[0].target", "a",
                  "replicator.groups[0].tables[0]", "sales/orders",
                  "replicator.groups[0].tables[1]", "sales/order_items",
                  "replicator.groups[0].clock-skew", "PT0.1S",
                  "replicator.groups[0].tag-interval", "PT0.3S",
                  "replicator.groups[0].keep-tags", "PT1H"));
      S3FileIO io = fixture.io();

      // every batch is in the cut once both tables were seen current after the last commit
      long lastCommit = items.currentSnapshot().timestampMillis();
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(cutMs(service.http.get(GROUP).json()))
                      .isGreaterThan(lastCommit + 100));
      JsonNode group = service.http.get(GROUP).json();
      long cut = cutMs(group);
      assertAtCut(group, cut, io, orders, items);
      assertThat(batchesAt(io, "orders", snapshotAt(group, "sales/orders")))
          .containsExactly("batch-1", "batch-2", "batch-3");
      // the cut is tagged on both replicas, for readers that name it in any engine
      String firstTag = awaitCutTagAfter(service, lastCommit);
      assertAtTag(firstTag, io, orders, items);
      assertThat(batchesAtRef(io, "orders", firstTag))
          .containsExactly("batch-1", "batch-2", "batch-3");

      // order_items' source gets a newest metadata file no reader can parse: its runs fail
      long broken = System.currentTimeMillis();
      try (S3Client client = fixture.s3.client()) {
        client.putObject(
            b ->
                b.bucket("source")
                    .key("warehouse/sales/order_items/metadata/99999-broken.metadata.json"),
            RequestBody.fromString("{not json"));
      }
      fixture.awaitState("/api/replications/a/sales/order_items", "FAILED");
      ServiceOnS3.append(orders, "batch-4", 2);
      fixture.awaitState("/api/replications/a/sales/orders", "IN_SYNC");
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          HintedReplica.open(io, "s3://replica/warehouse/sales/orders")
                              .currentSnapshot()
                              .snapshotId())
                      .isEqualTo(orders.currentSnapshot().snapshotId()));

      // orders' run records its replica current just after it publishes batch-4
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(service.http.get(GROUP).json().path("heldBackBy").asText())
                      .isEqualTo("sales/order_items"));
      JsonNode held = service.http.get(GROUP).json();
      assertThat(held.path("heldBackBy").asText()).isEqualTo("sales/order_items");
      long heldCut = cutMs(held);
      assertThat(heldCut).isGreaterThanOrEqualTo(cut).isLessThanOrEqualTo(broken);
      assertAtCut(held, heldCut, io, orders, items);
      assertThat(batchesAt(io, "orders", snapshotAt(held, "sales/orders")))
          .as("orders' replica holds batch-4, but not at the cut")
          .containsExactly("batch-1", "batch-2", "batch-3");
      String heldTag = service.http.get(GROUP).json().path("cutTag").asText();
      assertThat(CutTags.momentOfTag("sales", heldTag).getAsLong()).isLessThanOrEqualTo(broken);
      assertAtTag(heldTag, io, orders, items);
      assertThat(batchesAtRef(io, "orders", "sales"))
          .as("the moving tag stays at the cut too")
          .containsExactly("batch-1", "batch-2", "batch-3");
      assertKeptSinceTagged(io, "orders", firstTag);

      // order_items recovers and gets its batch-4; orders stays idle and must not hold the cut
      try (S3Client client = fixture.s3.client()) {
        client.deleteObject(
            b ->
                b.bucket("source")
                    .key("warehouse/sales/order_items/metadata/99999-broken.metadata.json"));
      }
      ServiceOnS3.append(items, "batch-4", 3);
      // past the commit by more than the clock-skew allowance: the cut then holds it
      long recovered = System.currentTimeMillis();
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(cutMs(service.http.get(GROUP).json())).isGreaterThan(recovered + 100));
      JsonNode moved = service.http.get(GROUP).json();
      assertAtCut(moved, cutMs(moved), io, orders, items);
      assertThat(batchesAt(io, "order_items", snapshotAt(moved, "sales/order_items")))
          .containsExactly("batch-1", "batch-2", "batch-3", "batch-4");
      String movedTag = awaitCutTagAfter(service, recovered);
      assertAtTag(movedTag, io, orders, items);
      assertThat(batchesAtRef(io, "order_items", movedTag))
          .containsExactly("batch-1", "batch-2", "batch-3", "batch-4");
      assertThat(batchesAtRef(io, "orders", firstTag))
          .as("an earlier cut tag still reads its moment")
          .containsExactly("batch-1", "batch-2", "batch-3");
      assertThat(service.http.get("/actuator/prometheus").body())
          .containsPattern("replicator_group_cut_lag_seconds\\{group=\"sales\"[^}]*} [0-9.]+");
      assertThat(service.http.get("/api/groups").json()).hasSize(1);
      assertThat(service.http.get("/api/groups/nothing").status()).isEqualTo(404);
    }
  }

  /**
   * At the group's default tag interval (five minutes: no scheduled round tags a cut during the
   * test), a consistent failover through the API promotes at the cut the replicas' own records
   * prove, seconds behind: every batch committed before both replicas recorded themselves current
   * is on both promoted tables. Before, no cut tag was on the replicas and the promotion was
   * refused.
   */
  @Test
  void aFailoverAtTheDefaultTagIntervalPromotesAtTheCutTheReplicasProve() throws Exception {
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      Table orders = fixture.warehouse.createSample("sales", "orders");
      Table items = fixture.warehouse.createSample("sales", "order_items");
      ServiceOnS3.append(orders, "batch-1", 2);
      ServiceOnS3.append(items, "batch-1", 3);
      RunningService service =
          fixture.start(
              Map.of(
                  "replicator.settle-time", "PT0.2S",
                  "replicator.groups[0].name", "sales",
                  "replicator.groups[0].target", "a",
                  "replicator.groups[0].tables[0]", "sales/orders",
                  "replicator.groups[0].tables[1]", "sales/order_items",
                  "replicator.groups[0].clock-skew", "PT0.1S"));
      S3FileIO io = fixture.io();
      ServiceOnS3.append(orders, "batch-2", 2);
      ServiceOnS3.append(items, "batch-2", 3);
      long last = items.currentSnapshot().timestampMillis();
      // the cut, less the allowance and rounded down to its second, lies after batch-2
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () -> {
                JsonNode now = service.http.get(GROUP).json();
                assertThat(now.path("cut").isTextual()).as(now.toString()).isTrue();
                assertThat(Instant.parse(now.path("cut").asText()).toEpochMilli())
                    .isGreaterThan(last + 1_100);
              });
      JsonNode status = service.http.get(GROUP).json();
      assertThat(status.path("cutTag").isNull())
          .as("no scheduled round tagged a cut: %s", status)
          .isTrue();
      assertThat(status.path("lossWindowSeconds").isNumber()).as(status.toString()).isTrue();

      HttpJson.Response answer = service.http.post(GROUP + "/promote?mode=now");

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      String cutTag = answer.json().path("cutTag").asText();
      assertThat(CutTags.momentOfTag("sales", cutTag).getAsLong()).isGreaterThanOrEqualTo(last);
      assertThat(batchesAt(io, "orders", currentOf(io, ORDERS)))
          .as("both promoted tables hold every batch committed before the cut")
          .containsExactly("batch-1", "batch-2")
          .isEqualTo(batchesAt(io, "order_items", currentOf(io, ITEMS)));
      assertThat(HintedReplica.open(io, ITEMS).refs().get(cutTag).isTag()).isTrue();
    }
  }

  /** Promoted by {@code promote --consistent} with the service stopped, or by the service's API. */
  @ParameterizedTest
  @ValueSource(strings = {"command", "api"})
  void aConsistentPromotionLeavesBothTablesAtOneBatchAndKeepsWhatCameAfterOnABranch(String by)
      throws Exception {
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      Table orders = fixture.warehouse.createSample("sales", "orders");
      Table items = fixture.warehouse.createSample("sales", "order_items");
      for (int batch = 1; batch <= 2; batch++) {
        ServiceOnS3.append(orders, "batch-" + batch, 2);
        ServiceOnS3.append(items, "batch-" + batch, 3);
      }
      RunningService service =
          fixture.start(
              Map.of(
                  "replicator.settle-time", "PT0.2S",
                  "replicator.groups[0].name", "sales",
                  "replicator.groups[0].target", "a",
                  "replicator.groups[0].tables[0]", "sales/orders",
                  "replicator.groups[0].tables[1]", "sales/order_items",
                  "replicator.groups[0].clock-skew", "PT0.1S",
                  "replicator.groups[0].tag-interval", "PT0.3S"));
      S3FileIO io = fixture.io();
      awaitCutTagAfter(service, items.currentSnapshot().timestampMillis());

      // order_items' replication fails; batch-3 reaches the orders replica only
      try (S3Client client = fixture.s3.client()) {
        client.putObject(
            b ->
                b.bucket("source")
                    .key("warehouse/sales/order_items/metadata/99999-broken.metadata.json"),
            RequestBody.fromString("{not json"));
      }
      fixture.awaitState("/api/replications/a/sales/order_items", "FAILED");
      ServiceOnS3.append(orders, "batch-3", 2);
      ServiceOnS3.append(items, "batch-3", 3);
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          batchesAt(
                              io,
                              "orders",
                              HintedReplica.open(io, ORDERS).currentSnapshot().snapshotId()))
                      .contains("batch-3"));
      String cutTag = service.http.get(GROUP).json().path("cutTag").asText();
      if (by.equals("command")) {
        service.close();
        fixture.service = null;
      }

      String[] promote = {
        "promote",
        "--consistent",
        "sales",
        "--mode",
        "now",
        "--target",
        ORDERS,
        "--target",
        ITEMS,
        "--endpoint",
        fixture.s3.endpoint().toString(),
        "--path-style",
        "--json"
      };
      java.util.concurrent.Callable<JsonNode> promotion =
          () -> {
            if (by.equals("api")) {
              HttpJson.Response answer = service.http.post(GROUP + "/promote?mode=now");
              assertThat(answer.status()).as(answer.body()).isEqualTo(200);
              return answer.json();
            }
            S3CommandFixture.Run run = S3CommandFixture.run(promote);
            assertThat(run.exit()).as(run.err()).isZero();
            return MAPPER.readTree(run.out());
          };
      S3CommandFixture.setCredentials();
      try {
        // refused before anything is written: another mode, or a ref no replica carries a cut of
        long ordersBefore = currentOf(io, ORDERS);
        if (by.equals("api")) {
          HttpJson.Response noMode = service.http.post(GROUP + "/promote?mode=later");
          assertThat(noMode.status()).isEqualTo(400);
          assertThat(noMode.json().path("error").asText()).contains("Give mode=now");
          assertThat(service.http.post("/api/groups/nothing/promote?mode=now").status())
              .isEqualTo(404);
        } else {
          String[] unknownRef = promote.clone();
          unknownRef[2] = "nosuchref";
          S3CommandFixture.Run refused = S3CommandFixture.run(unknownRef);
          assertThat(refused.exit()).isEqualTo(1);
          assertThat(refused.err()).contains("the replicas record group sales", "not nosuchref");
          String[] safeMode = promote.clone();
          safeMode[4] = "safe";
          S3CommandFixture.Run wrongMode = S3CommandFixture.run(safeMode);
          assertThat(wrongMode.exit()).isEqualTo(2);
          assertThat(wrongMode.err()).contains("give --mode now");
          String[] repeated = promote.clone();
          repeated[8] = ORDERS + "/";
          S3CommandFixture.Run twice = S3CommandFixture.run(repeated);
          assertThat(twice.exit()).isEqualTo(2);
          assertThat(twice.err()).contains("a --target is repeated");
        }
        assertThat(currentOf(io, ORDERS)).as("nothing promoted").isEqualTo(ordersBefore);
        assertThat(HintedReplica.open(io, ORDERS).refs()).doesNotContainKey(cutTag + "-replicated");

        JsonNode result = promotion.call();
        assertThat(result.path("cutTag").asText()).isEqualTo(cutTag);
        assertThat(batchesAt(io, "orders", currentOf(io, ORDERS)))
            .as("both promoted tables at one batch")
            .containsExactly("batch-1", "batch-2")
            .isEqualTo(batchesAt(io, "order_items", currentOf(io, ITEMS)));
        long moment = CutTags.momentOfTag("sales", cutTag).getAsLong();
        orders.refresh();
        assertThat(currentOf(io, ORDERS))
            .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(orders, moment));
        Table promotedOrders = HintedReplica.open(io, ORDERS);
        assertThat(
                batchesAt(
                    io, "orders", promotedOrders.snapshot(cutTag + "-replicated").snapshotId()))
            .as("what was replicated after the cut stays on its branch")
            .containsExactly("batch-1", "batch-2", "batch-3");
        JsonNode ordersResult = tableIn(result, ORDERS);
        assertThat(ordersResult.path("keptAfterCut").asInt()).isEqualTo(1);
        assertThat(ordersResult.path("branch").asText()).isEqualTo(cutTag + "-replicated");
        assertThat(tableIn(result, ITEMS).path("keptAfterCut").asInt()).isZero();

        if (by.equals("api")) {
          JsonNode status = service.http.get(GROUP).json();
          assertThat(status.path("reason").asText())
              .as("the group's status after its own promotion")
              .doesNotContain("behind its back")
              .contains("promoted at cut " + cutTag);
          assertThat(status.path("cutTag").asText()).isEqualTo(cutTag);
        }
        JsonNode again = promotion.call();
        assertThat(again.path("cutTag").asText())
            .as("a rerun completes the same cut")
            .isEqualTo(cutTag);
        assertThat(tableIn(again, ORDERS).path("alreadyPromoted").asBoolean()).isTrue();
        assertThat(currentOf(io, ITEMS))
            .isEqualTo(tableIn(result, ITEMS).path("cutSnapshotId").asLong());
      } finally {
        S3CommandFixture.clearCredentials();
      }
    }
  }

  /**
   * Each source gets a tag on its first snapshot named like a cut tag of the group, for a moment
   * far after every real cut. Replication goes on (the tag is the source's, replicated as any ref),
   * but it is never a cut: the group's status keeps the cut tag its tagging wrote and names the
   * table and the ref that stop further tagging, and a consistent promotion, on the command line or
   * through the API, promotes both tables at the recorded cut, not at the look-alike.
   */
  @ParameterizedTest
  @ValueSource(strings = {"command", "api"})
  void aSourceRefNamedLikeACutTagIsNeverTheCut(String by) throws Exception {
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      Table orders = fixture.warehouse.createSample("sales", "orders");
      Table items = fixture.warehouse.createSample("sales", "order_items");
      for (int batch = 1; batch <= 2; batch++) {
        ServiceOnS3.append(orders, "batch-" + batch, 2);
        ServiceOnS3.append(items, "batch-" + batch, 3);
      }
      RunningService service =
          fixture.start(
              Map.of(
                  "replicator.settle-time", "PT0.2S",
                  "replicator.groups[0].name", "sales",
                  "replicator.groups[0].target", "a",
                  "replicator.groups[0].tables[0]", "sales/orders",
                  "replicator.groups[0].tables[1]", "sales/order_items",
                  "replicator.groups[0].clock-skew", "PT0.1S",
                  "replicator.groups[0].tag-interval", "PT0.3S"));
      S3FileIO io = fixture.io();
      String cutTag = awaitCutTagAfter(service, items.currentSnapshot().timestampMillis());

      String lookalike = "sales-20991231T235959Z";
      for (Table source : List.of(orders, items)) {
        long first = SnapshotUtil.oldestAncestor(source).snapshotId();
        source.manageSnapshots().createTag(lookalike, first).commit();
      }
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () -> {
                assertThat(HintedReplica.open(io, ORDERS).refs()).containsKey(lookalike);
                assertThat(HintedReplica.open(io, ITEMS).refs()).containsKey(lookalike);
              });
      await()
          .atMost(ServiceOnS3.PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(service.http.get(GROUP).json().path("reason").asText())
                      .contains("Cannot tag group ref 'sales' on sales/")
                      .contains("'" + lookalike + "'"));
      // its tagging stopped at the last cut it wrote, at or after the one seen before
      JsonNode group = service.http.get(GROUP).json();
      String stoodAt = group.path("cutTag").asText();
      assertThat(CutTags.momentOfTag("sales", stoodAt).getAsLong())
          .as("the group's cut tag is one its tagging wrote, not %s", lookalike)
          .isGreaterThanOrEqualTo(CutTags.momentOfTag("sales", cutTag).getAsLong())
          .isLessThan(System.currentTimeMillis());
      assertThat(group.path("heldBackBy").asText()).startsWith("sales/");
      if (by.equals("command")) {
        service.close();
        fixture.service = null;
      }

      JsonNode result;
      if (by.equals("api")) {
        HttpJson.Response answer = service.http.post(GROUP + "/promote?mode=now");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        result = answer.json();
      } else {
        S3CommandFixture.setCredentials();
        try {
          S3CommandFixture.Run run =
              S3CommandFixture.run(
                  "promote",
                  "--consistent",
                  "sales",
                  "--mode",
                  "now",
                  "--target",
                  ORDERS,
                  "--target",
                  ITEMS,
                  "--endpoint",
                  fixture.s3.endpoint().toString(),
                  "--path-style",
                  "--json");
          assertThat(run.exit()).as(run.err()).isZero();
          result = MAPPER.readTree(run.out());
        } finally {
          S3CommandFixture.clearCredentials();
        }
      }
      assertThat(result.path("cutTag").asText()).isEqualTo(stoodAt);
      assertThat(batchesAt(io, "orders", currentOf(io, ORDERS)))
          .as("promoted at the recorded cut, not rolled back to the look-alike's snapshot")
          .containsExactly("batch-1", "batch-2")
          .isEqualTo(batchesAt(io, "order_items", currentOf(io, ITEMS)));
      assertThat(tableIn(result, ORDERS).path("keptAfterCut").asInt()).isZero();
      assertThat(tableIn(result, ITEMS).path("keptAfterCut").asInt()).isZero();
    }
  }

  /**
   * Planned failover: the sources still serve, the writers have just stopped. The safe promotion
   * refuses while a replica does not verify (nothing promoted), then catches both tables up to
   * their sources, tags a fresh cut (the scheduled rounds tag only hourly here) and promotes at it:
   * both promoted tables hold every batch, each its source's current snapshot, nothing after the
   * cut.
   */
  @Test
  void aSafeConsistentPromotionCatchesUpVerifiesAndPromotesAtAFreshCut() throws Exception {
    try (ServiceOnS3 fixture = new ServiceOnS3()) {
      Table orders = fixture.warehouse.createSample("sales", "orders");
      Table items = fixture.warehouse.createSample("sales", "order_items");
      ServiceOnS3.append(orders, "batch-1", 2);
      ServiceOnS3.append(items, "batch-1", 3);
      RunningService service =
          fixture.start(
              Map.of(
                  "replicator.settle-time", "PT0.2S",
                  "replicator.reconciliation-interval", "PT1H",
                  "replicator.groups[0].name", "sales",
                  "replicator.groups[0].target", "a",
                  "replicator.groups[0].tables[0]", "sales/orders",
                  "replicator.groups[0].tables[1]", "sales/order_items",
                  "replicator.groups[0].clock-skew", "PT0.1S",
                  "replicator.groups[0].tag-interval", "PT1H"));
      S3FileIO io = fixture.io();
      fixture.awaitState("/api/replications/a/sales/orders", "IN_SYNC");
      fixture.awaitState("/api/replications/a/sales/order_items", "IN_SYNC");

      // a replica missing a data file does not verify: refused, nothing promoted
      String deleted = fixture.deleteOneReplicaDataFile("sales/order_items");
      long ordersBefore = currentOf(io, ORDERS);
      HttpJson.Response refused = service.http.post(GROUP + "/promote?mode=safe");
      assertThat(refused.status()).as(refused.body()).isEqualTo(409);
      assertThat(refused.json().path("error").asText())
          .contains("sales/order_items")
          .contains("problem");
      assertThat(currentOf(io, ORDERS)).isEqualTo(ordersBefore);
      assertThat(HintedReplica.open(io, ORDERS).refs().keySet())
          .noneMatch(ref -> ref.endsWith("-replicated"));
      try (S3Client client = fixture.s3.client()) {
        String key = deleted.substring("s3://replica/".length());
        client.copyObject(
            b ->
                b.sourceBucket("source")
                    .sourceKey(key)
                    .destinationBucket("replica")
                    .destinationKey(key));
      }

      // the last batches, not replicated yet (no reconciliation, no events): safe mode fetches them
      ServiceOnS3.append(orders, "batch-2", 2);
      ServiceOnS3.append(items, "batch-2", 3);
      HttpJson.Response promoted = service.http.post(GROUP + "/promote?mode=safe");
      assertThat(promoted.status()).as(promoted.body()).isEqualTo(200);
      JsonNode result = promoted.json();
      String cutTag = result.path("cutTag").asText();
      assertThat(CutTags.momentOfTag("sales", cutTag).getAsLong())
          .as("a fresh cut, after the last commit")
          .isGreaterThan(items.currentSnapshot().timestampMillis());
      assertThat(currentOf(io, ORDERS)).isEqualTo(orders.currentSnapshot().snapshotId());
      assertThat(currentOf(io, ITEMS)).isEqualTo(items.currentSnapshot().snapshotId());
      assertThat(batchesAt(io, "order_items", currentOf(io, ITEMS)))
          .containsExactly("batch-1", "batch-2")
          .isEqualTo(batchesAt(io, "orders", currentOf(io, ORDERS)));
      assertThat(tableIn(result, ORDERS).path("keptAfterCut").asInt()).isZero();
      assertThat(tableIn(result, ITEMS).path("keptAfterCut").asInt()).isZero();

      JsonNode again = service.http.post(GROUP + "/promote?mode=safe").json();
      assertThat(again.path("cutTag").asText()).as("a rerun, the same cut").isEqualTo(cutTag);
      assertThat(tableIn(again, ITEMS).path("alreadyPromoted").asBoolean()).isTrue();
    }
  }

  private static final String ORDERS = "s3://replica/warehouse/sales/orders";
  private static final String ITEMS = "s3://replica/warehouse/sales/order_items";
  private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private static long currentOf(S3FileIO io, String location) {
    return HintedReplica.open(io, location).currentSnapshot().snapshotId();
  }

  /** The table's entry: named by its location on the command line, as the API names it there. */
  private static JsonNode tableIn(JsonNode result, String location) {
    String apiName = location.substring("s3://replica/warehouse/".length());
    for (JsonNode table : result.path("tables")) {
      String name = table.path("table").asText();
      if (name.equals(location) || name.equals(apiName)) {
        return table;
      }
    }
    throw new AssertionError("no table " + location + " in " + result);
  }

  /** The group's cut tag once it tags a moment after {@code afterMs}. */
  private static String awaitCutTagAfter(RunningService service, long afterMs) {
    await()
        .atMost(ServiceOnS3.PATIENCE)
        .until(
            () -> {
              String tag = service.http.get(GROUP).json().path("cutTag").asText(null);
              return tag != null && CutTags.momentOfTag("sales", tag).getAsLong() > afterMs;
            });
    return service.http.get(GROUP).json().path("cutTag").asText();
  }

  /**
   * Each replica's tag names the source's snapshot as of the tag's moment (Iceberg's own time
   * travel), and the replicas read at it hold one batch set.
   */
  private static void assertAtTag(String tag, S3FileIO io, Table orders, Table items)
      throws IOException {
    long moment = CutTags.momentOfTag("sales", tag).getAsLong();
    orders.refresh();
    items.refresh();
    for (String name : new String[] {"orders", "order_items"}) {
      Table replica = HintedReplica.open(io, "s3://replica/warehouse/sales/" + name);
      assertThat(replica.refs().get(tag).isTag()).isTrue();
      Table source = name.equals("orders") ? orders : items;
      assertThat(replica.snapshot(tag).snapshotId())
          .as("%s at %s", name, tag)
          .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(source, moment));
    }
    assertThat(batchesAtRef(io, "orders", tag))
        .as("the batches of both replicas read at %s", tag)
        .isEqualTo(batchesAtRef(io, "order_items", tag));
  }

  /**
   * Every replica version from the first that carries {@code tag} carries it: replication (here of
   * batch-4) keeps the tags, it does not drop them for the next tagging round to put back.
   */
  private static void assertKeptSinceTagged(S3FileIO io, String name, String tag) {
    Table replica = HintedReplica.open(io, "s3://replica/warehouse/sales/" + name);
    org.apache.iceberg.TableMetadata current =
        ((HasTableOperations) replica).operations().current();
    List<String> files = new ArrayList<>();
    current.previousFiles().forEach(entry -> files.add(entry.file()));
    files.add(current.metadataFileLocation());
    boolean seen = false;
    int after = 0;
    for (String file : files) {
      boolean has = TableMetadataParser.read(io, file).refs().containsKey(tag);
      assertThat(has || !seen).as("%s dropped %s", file, tag).isTrue();
      after += seen ? 1 : 0;
      seen |= has;
    }
    assertThat(seen).isTrue();
    assertThat(after).as("versions after the tag's").isPositive();
  }

  private static Set<String> batchesAtRef(S3FileIO io, String name, String ref) throws IOException {
    Table replica = HintedReplica.open(io, "s3://replica/warehouse/sales/" + name);
    return batchesAt(io, name, replica.snapshot(ref).snapshotId());
  }

  private static long cutMs(JsonNode group) {
    JsonNode cut = group.path("cut");
    return cut.isTextual() ? Instant.parse(cut.asText()).toEpochMilli() : Long.MIN_VALUE;
  }

  private static long snapshotAt(JsonNode group, String table) {
    for (JsonNode each : group.path("tables")) {
      if (each.path("table").asText().equals(table)) {
        return each.path("snapshotId").asLong();
      }
    }
    throw new AssertionError("no table " + table + " in " + group);
  }

  /** Each replica's snapshot at the cut is the source's as of then, and they hold one batch set. */
  private static void assertAtCut(JsonNode group, long cut, S3FileIO io, Table orders, Table items)
      throws IOException {
    long skew = 100;
    orders.refresh();
    items.refresh();
    long ordersAt = snapshotAt(group, "sales/orders");
    long itemsAt = snapshotAt(group, "sales/order_items");
    assertThat(ordersAt).isEqualTo(SnapshotUtil.snapshotIdAsOfTime(orders, cut - skew));
    assertThat(itemsAt).isEqualTo(SnapshotUtil.snapshotIdAsOfTime(items, cut - skew));
    assertThat(batchesAt(io, "orders", ordersAt))
        .as("the batches of both replicas read at the cut")
        .isEqualTo(batchesAt(io, "order_items", itemsAt));
  }

  /** The batches a reader of the replica of {@code name} sees at {@code snapshotId}. */
  private static Set<String> batchesAt(S3FileIO io, String name, long snapshotId)
      throws IOException {
    Table replica = HintedReplica.open(io, "s3://replica/warehouse/sales/" + name);
    Set<String> batches = new TreeSet<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(replica).useSnapshot(snapshotId).build()) {
      records.forEach(record -> batches.add((String) record.getField("category")));
    }
    return batches;
  }
}
