package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.CliRun;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.copier.store.LocalObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's whole failover and switch-back with one ref, as the runbook does it: the replicas carry
 * the group's cut tags, {@code promote --consistent sales} promotes them at one, {@code failback
 * --consistent sales} fails the originals back (which brings those cut tags along) and tags a new
 * cut, and {@code promote --consistent sales} on the originals switches back at it. Read with the
 * Iceberg library, both originals end at the same batches; replication from them then resumes while
 * the group's tags move on the replicas again.
 */
class GroupSwitchBackTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aGroupPromotedAtItsCutTagFailsBackAndSwitchesBackUnderTheSameRef() throws Exception {
    SourceTable orders = SourceTable.create(dir.resolve("orders"), 2);
    SourceTable items = SourceTable.create(dir.resolve("order_items"), 2);
    for (String batch : List.of("batch-1", "batch-2")) {
      orders.append(batch, 2);
      items.append(batch, 3);
    }
    String drOrders = dir.resolve("dr/orders").toUri().toString();
    String drItems = dir.resolve("dr/order_items").toUri().toString();
    replicate(orders.location, drOrders);
    replicate(items.location, drItems);
    pause();
    long cut = System.currentTimeMillis();
    tagCut(List.of(drOrders, drItems), cut);

    CliRun promoted =
        CliRun.of(
            "promote",
            "--consistent",
            "sales",
            "--mode",
            "now",
            "--target",
            drOrders,
            "--target",
            drItems,
            "--json");
    assertThat(promoted.exit()).as(promoted.err()).isZero();
    String promotedAt = MAPPER.readTree(promoted.out()).path("cutTag").asText();
    assertThat(promotedAt).startsWith("sales-");

    // past the clock-skew allowance (1 s) and the next whole second: the fail-back's cut is later
    pause();
    pause();
    CliRun failedBack =
        CliRun.of(
            "failback",
            "--consistent",
            "sales",
            "--primary",
            drOrders,
            "--old-source",
            orders.location,
            "--primary",
            drItems,
            "--old-source",
            items.location,
            "--json");
    assertThat(failedBack.exit()).as(failedBack.err()).isZero();
    String failedBackAt = MAPPER.readTree(failedBack.out()).path("cutTag").asText();
    assertThat(failedBackAt).startsWith("sales-").isNotEqualTo(promotedAt);
    Table ordersOriginal = SourceTable.TABLES.load(orders.location);
    Table ordersPromoted = SourceTable.TABLES.load(drOrders);
    assertThat(ordersOriginal.snapshot(promotedAt).snapshotId())
        .as("the promoted table's cut tag, carried into the original")
        .isEqualTo(ordersPromoted.snapshot(promotedAt).snapshotId());

    CliRun switchedBack =
        CliRun.of(
            "promote",
            "--consistent",
            "sales",
            "--mode",
            "now",
            "--target",
            orders.location,
            "--target",
            items.location,
            "--json");
    assertThat(switchedBack.exit()).as(switchedBack.err()).isZero();
    JsonNode back = MAPPER.readTree(switchedBack.out());
    assertThat(back.path("cutTag").asText()).isEqualTo(failedBackAt);
    ordersOriginal.refresh();
    Table itemsOriginal = SourceTable.TABLES.load(items.location);
    assertThat(batches(ordersOriginal))
        .containsExactly("batch-1", "batch-2")
        .isEqualTo(batches(itemsOriginal));
    assertThat(ordersOriginal.properties()).doesNotContainKey("replicator.read-only");

    // replication resumes from the originals, and the group's tags move on the replicas again:
    // the originals' own group tags (the fail-back's, and those it carried over) stay out of them
    SourceTable ordersAgain = SourceTable.open(orders.location, 1_000);
    SourceTable itemsAgain = SourceTable.open(items.location, 2_000);
    ordersAgain.append("batch-3", 2);
    itemsAgain.append("batch-3", 3);
    replicate(orders.location, drOrders);
    replicate(items.location, drItems);
    pause();
    tagCut(List.of(drOrders, drItems), System.currentTimeMillis());
    ordersAgain.append("batch-4", 2);
    itemsAgain.append("batch-4", 3);
    replicate(orders.location, drOrders);
    replicate(items.location, drItems);
    ordersPromoted.refresh();
    assertThat(batches(ordersPromoted))
        .containsExactly("batch-1", "batch-2", "batch-3", "batch-4")
        .isEqualTo(batches(SourceTable.TABLES.load(drItems)));
    assertThat(ordersPromoted.properties()).containsEntry("replicator.read-only", "true");
  }

  private static void tagCut(List<String> replicas, long cut) throws IOException {
    for (String replica : replicas) {
      assertThat(
              new CutTagWriter(
                      new LocalObjectStore(),
                      Clock.systemUTC(),
                      ReplicationOptions.defaults().maxMetadataBytes())
                  .move(replica, replica, "sales", cut, Duration.ofHours(1), file -> {}))
          .isEqualTo(CutTagWriter.Outcome.MOVED);
    }
  }

  private static void replicate(String source, String target) {
    CliRun run = CliRun.of("replicate", "--source", source, "--target", target);
    assertThat(run.exit()).as(run.err()).isZero();
  }

  /** Past the next whole second: cut tags name whole seconds. */
  private static void pause() throws InterruptedException {
    Thread.sleep(1_100);
  }

  private static Set<String> batches(Table table) throws IOException {
    Set<String> batches = new TreeSet<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(record -> batches.add((String) record.getField("category")));
    }
    return batches;
  }
}
