package io.icerepl.app.engine.group;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.state.GroupMembership;
import io.icerepl.merge.state.KnownCurrent;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consistent failover from the replicas alone: {@code orders} and {@code order_items} written in
 * lockstep by the Iceberg library (each batch to orders, then its items; the batch is the rows'
 * category), replicated by {@code replicate} runs with no service, so no cut tag was ever written.
 * {@code order_items} is held back while {@code orders} replicates two more batches. {@code promote
 * --consistent} then promotes both at the cut their replicas' own records prove: read with the
 * Iceberg library, both tables hold the same batches, no order without its items, and what {@code
 * orders} replicated after the cut is on a branch.
 */
class ConsistentFailoverTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void tablesReplicatedByRunsAloneFailOverTogetherAtTheCutTheirReplicasProve() throws Exception {
    SourceTable orders = SourceTable.create(dir.resolve("lake/orders"), 2);
    SourceTable items = SourceTable.create(dir.resolve("lake/order_items"), 2);
    String ordersReplica = dir.resolve("dr/orders").toString();
    String itemsReplica = dir.resolve("dr/order_items").toString();
    batch(orders, items, "batch-1");
    batch(orders, items, "batch-2");
    pastTheAllowance();
    replicate(orders.location, ordersReplica);
    replicate(items.location, itemsReplica);
    // order_items is held back: its replica stays at batch-2, known current from before batch-3
    batch(orders, items, "batch-3");
    replicate(orders.location, ordersReplica);
    batch(orders, items, "batch-4");
    replicate(orders.location, ordersReplica);

    Map<String, String> before = files(dir.resolve("dr"));
    Run planned =
        cli(
            "promote",
            "--consistent",
            "--dry-run",
            "--target",
            ordersReplica,
            "--target",
            itemsReplica,
            "--json");
    assertThat(planned.exit).as(planned.err).isZero();
    assertThat(files(dir.resolve("dr"))).as("a dry run writes nothing").isEqualTo(before);
    JsonNode plan = JSON.readTree(planned.out);
    assertThat(plan.path("dryRun").asBoolean()).isTrue();
    assertThat(plan.path("heldBackBy").asText()).isEqualTo(itemsReplica);
    assertThat(plan.path("lossWindowSeconds").asDouble()).isPositive();
    assertThat(plan.path("tables").get(0).path("afterCut").asInt())
        .as("batch-3 and batch-4 of orders lie after the cut")
        .isEqualTo(2);
    assertThat(plan.path("tables").get(1).path("afterCut").asInt()).isZero();

    Run promoted =
        cli(
            "promote",
            "--consistent",
            "--mode",
            "now",
            "--target",
            ordersReplica,
            "--target",
            itemsReplica,
            "--json");

    assertThat(promoted.exit).as(promoted.err).isZero();
    JsonNode result = JSON.readTree(promoted.out);
    String cutTag = result.path("cutTag").asText();
    assertThat(cutTag).isEqualTo(plan.path("cutTag").asText());
    assertThat(CutTags.isOf(ConsistentFailover.DEFAULT_REF, cutTag)).isTrue();
    Table ordersPromoted = SourceTable.TABLES.load(ordersReplica);
    Table itemsPromoted = SourceTable.TABLES.load(itemsReplica);
    assertThat(batches(ordersPromoted, ordersPromoted.currentSnapshot().snapshotId()))
        .as("both promoted tables at one batch set: no order without its items")
        .containsExactly("batch-1", "batch-2")
        .isEqualTo(batches(itemsPromoted, itemsPromoted.currentSnapshot().snapshotId()));
    for (Table table : List.of(ordersPromoted, itemsPromoted)) {
      assertThat(table.refs().get(cutTag).isTag()).as("the cut is tagged on %s", table).isTrue();
      assertThat(table.snapshot(cutTag).snapshotId())
          .isEqualTo(table.currentSnapshot().snapshotId());
    }
    assertThat(
            batches(ordersPromoted, ordersPromoted.snapshot(cutTag + "-replicated").snapshotId()))
        .as("what orders replicated after the cut stays on a branch")
        .contains("batch-3", "batch-4");
    assertThat(result.path("tables").get(0).path("keptAfterCut").asInt()).isEqualTo(2);

    Run again =
        cli(
            "promote",
            "--consistent",
            "--mode",
            "now",
            "--target",
            ordersReplica,
            "--target",
            itemsReplica,
            "--json");
    assertThat(again.exit).as(again.err).isZero();
    JsonNode rerun = JSON.readTree(again.out);
    assertThat(rerun.path("cutTag").asText())
        .as("a rerun completes the same cut")
        .isEqualTo(cutTag);
    assertThat(rerun.path("tables").get(1).path("alreadyPromoted").asBoolean()).isTrue();
  }

  /**
   * The service records each member's group in its replica's state: a promotion naming part of the
   * group is refused, writing nothing, unless asked for with {@code --partial-group}.
   */
  @Test
  void aPromotionOfPartOfARecordedGroupIsRefusedUnlessAskedFor() throws Exception {
    SourceTable orders = SourceTable.create(dir.resolve("lake/orders"), 2);
    SourceTable items = SourceTable.create(dir.resolve("lake/order_items"), 2);
    String ordersReplica = dir.resolve("dr/orders").toString();
    String itemsReplica = dir.resolve("dr/order_items").toString();
    batch(orders, items, "batch-1");
    pastTheAllowance();
    GroupMembership sales =
        new GroupMembership(
            "sales",
            "sales",
            List.of(ordersReplica, itemsReplica),
            Duration.ofMillis(100),
            Duration.ZERO);
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      for (String[] pair :
          List.of(
              new String[] {orders.location, ordersReplica},
              new String[] {items.location, itemsReplica})) {
        // as the service's lanes replicate a group's member
        TableReplicator.builder(
                new LocalObjectStore(),
                new LocalObjectStore(),
                executor,
                new ReplicationOptions(List.of(), false, 64L << 20, 2, Duration.ZERO))
            .knownCurrent(KnownCurrent.member(Duration.ofSeconds(5), sales))
            .build()
            .replicateIfChanged(pair[0], pair[1]);
      }
    } finally {
      executor.shutdownNow();
    }
    assertThat(Files.readString(dir.resolve("dr/orders/metadata/.replicator-state.json")))
        .contains("\"group\"", "\"sales\"", itemsReplica, "known-current-from-ms");

    Map<String, String> before = files(dir.resolve("dr"));
    Run part = cli("promote", "--consistent", "--mode", "now", "--target", ordersReplica);
    assertThat(part.exit).isEqualTo(1);
    assertThat(part.err)
        .contains("the replicas record group sales", itemsReplica, "--partial-group")
        .contains("nothing was written");
    assertThat(files(dir.resolve("dr"))).isEqualTo(before);

    Run asked =
        cli(
            "promote",
            "--consistent",
            "--mode",
            "now",
            "--partial-group",
            "--target",
            ordersReplica,
            "--json");
    assertThat(asked.exit).as(asked.err).isZero();
    assertThat(JSON.readTree(asked.out).path("cutTag").asText())
        .as("the group's ref, as its replicas record it")
        .startsWith("sales-");
  }

  /**
   * A cut that precedes a table's first commit has no moment every table shows: the promotion is
   * refused before any table is tagged or promoted.
   */
  @Test
  void aCutBeforeATablesFirstCommitIsRefusedWritingNothing() throws Exception {
    SourceTable orders = SourceTable.create(dir.resolve("lake/orders"), 2);
    SourceTable items = SourceTable.create(dir.resolve("lake/order_items"), 2);
    String ordersReplica = dir.resolve("dr/orders").toString();
    String itemsReplica = dir.resolve("dr/order_items").toString();
    orders.append("batch-1", 2);
    pastTheAllowance();
    replicate(orders.location, ordersReplica);
    // order_items' first commit comes after orders' replica was last known current: the cut
    items.append("batch-1", 3);
    replicate(items.location, itemsReplica);

    Map<String, String> before = files(dir.resolve("dr"));
    Run refused =
        cli(
            "promote",
            "--consistent",
            "--mode",
            "now",
            "--target",
            ordersReplica,
            "--target",
            itemsReplica);

    assertThat(refused.exit).isEqualTo(1);
    assertThat(refused.err)
        .contains(itemsReplica, "had no snapshot at the cut", "nothing was written");
    assertThat(files(dir.resolve("dr"))).as("no table tagged, none promoted").isEqualTo(before);
  }

  private static void batch(SourceTable orders, SourceTable items, String batch) {
    orders.append(batch, 2);
    items.append(batch, 3);
  }

  /** Past the clock-skew allowance and the cut's rounding down to its second. */
  private static void pastTheAllowance() throws InterruptedException {
    Thread.sleep(2_100);
  }

  private static void replicate(String source, String target) {
    Run run = cli("replicate", "--source", source, "--target", target);
    assertThat(run.exit).as(run.err).isZero();
  }

  private static Set<String> batches(Table table, long snapshotId) throws IOException {
    Set<String> batches = new TreeSet<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(record -> batches.add((String) record.getField("category")));
    }
    return batches;
  }

  private static Map<String, String> files(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            root.relativize(path).toString(),
            Files.readString(path, java.nio.charset.StandardCharsets.ISO_8859_1));
      }
    }
    return files;
  }

  private record Run(int exit, String out, String err) {}

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of(args));
    if (all.get(0).equals("replicate")) {
      all.addAll(List.of("--settle-time", "0ms"));
    }
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
