package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A replication group of two tables written in lockstep by the Iceberg library (each batch
 * committed to {@code orders}, then to {@code order_items}, its rows in a category named after the
 * batch), replicated by the service on the embedded S3. The group's cut names, for each replica,
 * the snapshot Iceberg's own time travel finds on the source at that moment, and the replicas read
 * there hold the same batches; while one table's replication fails, the cut stays where that table
 * was last known replicated, and the other replica, read at the cut, does not run ahead of it.
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
                  "replicator.groups[0].clock-skew", "PT0.1S"));
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

      JsonNode held = service.http.get(GROUP).json();
      assertThat(held.path("heldBackBy").asText()).isEqualTo("sales/order_items");
      long heldCut = cutMs(held);
      assertThat(heldCut).isGreaterThanOrEqualTo(cut).isLessThanOrEqualTo(broken);
      assertAtCut(held, heldCut, io, orders, items);
      assertThat(batchesAt(io, "orders", snapshotAt(held, "sales/orders")))
          .as("orders' replica holds batch-4, but not at the cut")
          .containsExactly("batch-1", "batch-2", "batch-3");

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
      assertThat(service.http.get("/actuator/prometheus").body())
          .containsPattern("replicator_group_cut_lag_seconds\\{group=\"sales\"[^}]*} [0-9.]+");
      assertThat(service.http.get("/api/groups").json()).hasSize(1);
      assertThat(service.http.get("/api/groups/nothing").status()).isEqualTo(404);
    }
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
