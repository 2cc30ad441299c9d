package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.group.CutTags;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group failed back after its failover: {@code orders} and {@code order_items} written in
 * lockstep by the Iceberg library (each batch to orders, then to its items, the batch the rows'
 * category), replicated, promoted, and written on as the primaries; the old {@code orders} source
 * committed once more (an orphan). Failing the group back makes each original a replica of its
 * promoted table and tags one cut on both: read at the tag with the Iceberg library, the originals
 * hold the same batches, each its promoted table's snapshot of the tag's moment (Iceberg's own time
 * travel on the primary), even while a writer goes on committing to the primaries between the
 * tables' fail-backs; switching back with {@code promote --consistent} on the originals leaves both
 * at that one batch set.
 */
class GroupFailbackTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static ExecutorService executor;

  @TempDir Path dir;
  private SourceTable orders;
  private SourceTable items;
  private String promotedOrders;
  private String promotedItems;
  private SourceTable ordersPrimary;
  private SourceTable itemsPrimary;

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  @BeforeEach
  void failover() {
    orders = SourceTable.create(dir.resolve("orders"), 2);
    items = SourceTable.create(dir.resolve("order_items"), 2);
    for (String batch : List.of("batch-1", "batch-2")) {
      orders.append(batch, 2);
      items.append(batch, 3);
    }
    promotedOrders = dir.resolve("dr/orders").toUri().toString();
    promotedItems = dir.resolve("dr/order_items").toUri().toString();
    for (String[] pair :
        List.of(
            new String[] {orders.location, promotedOrders},
            new String[] {items.location, promotedItems})) {
      Run replicated = cli("replicate", "--source", pair[0], "--target", pair[1]);
      assertThat(replicated.exit).as(replicated.err).isZero();
      Run promoted = cli("promote", "--target", pair[1], "--mode", "now");
      assertThat(promoted.exit).as(promoted.err).isZero();
    }
    // the old orders source committed once after its last replicated version: an orphan
    orders.append("orphan", 1);
    ordersPrimary = SourceTable.open(promotedOrders, 1_000);
    itemsPrimary = SourceTable.open(promotedItems, 1_000);
    writeBatch("batch-3");
  }

  /**
   * The writer commits batch-4 to both primaries after {@code orders} was failed back and before
   * {@code order_items} is: the cut is where orders was known current, so neither original shows
   * batch-4 at the tag, though order_items' {@code main} holds it.
   */
  @Test
  void theCutTagShowsOneMomentOfThePrimariesWhileAWriterCommitsBetweenTheTables() throws Exception {
    pause(); // batch-3 lies in an earlier second than the cut: it is in it
    AtomicBoolean written = new AtomicBoolean();
    ObjectStore itemsPrimaryStore =
        new ForwardingObjectStore(new LocalObjectStore()) {
          @Override
          public List<Entry> listEntries(String folder) throws IOException {
            if (written.compareAndSet(false, true)) {
              // orders is failed back and known current by now; the cut's second lies behind
              pause();
              writeBatch("batch-4");
              pause();
            }
            return super.listEntries(folder);
          }
        };
    List<GroupFailback.Member> members =
        List.of(
            new GroupFailback.Member(
                "orders",
                promotedOrders,
                orders.location,
                new LocalObjectStore(),
                new LocalObjectStore(),
                TableCatalogs.NONE),
            new GroupFailback.Member(
                "order_items",
                promotedItems,
                items.location,
                itemsPrimaryStore,
                new LocalObjectStore(),
                TableCatalogs.NONE));

    GroupFailback.Result result =
        new GroupFailback(
                Clock.systemUTC(),
                executor,
                options(),
                TableFailback.DEFAULT_TAG_PREFIX,
                Duration.ofSeconds(30))
            .failback(members, "sales", Duration.ofMillis(100), Duration.ZERO, Duration.ofDays(1));

    assertThat(written).isTrue();
    String tag = result.cutTag();
    assertThat(CutTags.isOf("sales", tag)).isTrue();
    Table ordersOriginal = SourceTable.TABLES.load(orders.location);
    Table itemsOriginal = SourceTable.TABLES.load(items.location);
    assertThat(batchesAt(itemsOriginal, itemsOriginal.currentSnapshot().snapshotId()))
        .as("order_items' main holds what was committed before its fail-back")
        .contains("batch-4");
    assertAtTag(tag, ordersOriginal, itemsOriginal);
    assertThat(batchesAt(ordersOriginal, ordersOriginal.snapshot(tag).snapshotId()))
        .containsExactly("batch-1", "batch-2", "batch-3");
    assertThat(result.tables().get(1).changedAfterCut()).isPositive();
    assertThat(result.tables().get(0).failback().orphanTags())
        .as("the old source's orphan is kept")
        .hasSize(1);
    long orphan = result.tables().get(0).failback().orphanTags().values().iterator().next();
    assertThat(batchesAt(ordersOriginal, orphan)).contains("orphan");

    // switching back at the cut: both originals promoted at the tag, what came after kept
    Run back =
        cli(
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
    assertThat(back.exit).as(back.err).isZero();
    assertThat(MAPPER.readTree(back.out).path("cutTag").asText()).isEqualTo(tag);
    ordersOriginal.refresh();
    itemsOriginal.refresh();
    assertThat(batchesAt(ordersOriginal, ordersOriginal.currentSnapshot().snapshotId()))
        .containsExactly("batch-1", "batch-2", "batch-3")
        .isEqualTo(batchesAt(itemsOriginal, itemsOriginal.currentSnapshot().snapshotId()));
    assertThat(batchesAt(itemsOriginal, itemsOriginal.snapshot(tag + "-replicated").snapshotId()))
        .as("batch-4 stays on the branch after the cut")
        .contains("batch-4");
  }

  /**
   * A fail-back run at once after the promotion, with a one-second clock-skew allowance: its cut
   * would fall before the promotion and read each primary's {@code main} as it was before the
   * promotion moved it. The cut lies at or after the latest promotion.
   */
  @Test
  void aFailBackRightAfterThePromotionTagsNoCutBeforeIt() throws Exception {
    long promotedAt = 0;
    for (String primary : List.of(promotedOrders, promotedItems)) {
      promotedAt =
          Math.max(
              promotedAt,
              new io.icerepl.app.engine.replica.ReplicaFiles(new LocalObjectStore(), 64L << 20)
                  .state(primary)
                  .promotion()
                  .promotedAtMillis());
    }
    List<GroupFailback.Member> members =
        List.of(
            new GroupFailback.Member(
                "orders",
                promotedOrders,
                orders.location,
                new LocalObjectStore(),
                new LocalObjectStore(),
                TableCatalogs.NONE),
            new GroupFailback.Member(
                "order_items",
                promotedItems,
                items.location,
                new LocalObjectStore(),
                new LocalObjectStore(),
                TableCatalogs.NONE));

    GroupFailback.Result result =
        new GroupFailback(
                Clock.systemUTC(),
                executor,
                options(),
                TableFailback.DEFAULT_TAG_PREFIX,
                Duration.ofSeconds(30))
            .failback(members, "sales", Duration.ofSeconds(1), Duration.ZERO, Duration.ofDays(1));

    assertThat(result.cut().toEpochMilli())
        .as("the cut %s against the promotion at %d", result.cut(), promotedAt)
        .isGreaterThanOrEqualTo(promotedAt);
    // the writer's batch-3 landed after the promotion, orders then items: at the cut, each original
    // shows its primary as of that moment, and never items without their order
    String tag = result.cutTag();
    long moment = CutTags.momentOfTag("sales", tag).getAsLong();
    Table ordersOriginal = SourceTable.TABLES.load(orders.location);
    Table itemsOriginal = SourceTable.TABLES.load(items.location);
    ordersPrimary.table.refresh();
    itemsPrimary.table.refresh();
    assertThat(ordersOriginal.snapshot(tag).snapshotId())
        .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(ordersPrimary.table, moment));
    assertThat(itemsOriginal.snapshot(tag).snapshotId())
        .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(itemsPrimary.table, moment));
    assertThat(batchesAt(ordersOriginal, ordersOriginal.snapshot(tag).snapshotId()))
        .containsAll(batchesAt(itemsOriginal, itemsOriginal.snapshot(tag).snapshotId()));
  }

  /**
   * A planned switch-back with the writers stopped, by the command: the cut covers every commit of
   * the primaries. Bad arguments are refused before anything is written.
   */
  @Test
  void theCommandFailsTheGroupBackAtACutAfterEveryCommitOnceTheWritersStopped() throws Exception {
    Run unpaired =
        cli(
            "failback",
            "--consistent",
            "sales",
            "--primary",
            promotedOrders,
            "--old-source",
            orders.location,
            "--primary",
            promotedItems);
    assertThat(unpaired.exit).isEqualTo(2);
    assertThat(unpaired.err).contains("give one --old-source per --primary");
    Run two = cli("failback", "--primary", promotedOrders, "--primary", promotedItems);
    assertThat(two.exit).isEqualTo(2);
    Run repeated =
        cli(
            "failback",
            "--consistent",
            "sales",
            "--primary",
            promotedOrders,
            "--old-source",
            orders.location,
            "--primary",
            promotedItems,
            "--old-source",
            orders.location + "/");
    assertThat(repeated.exit).isEqualTo(2);
    assertThat(repeated.err).contains("an original location is repeated");
    Table ordersOriginal = SourceTable.TABLES.load(orders.location);
    assertThat(ordersOriginal.properties()).doesNotContainKey("replicator.read-only");

    pause(); // the writers stopped a second ago
    Run run =
        cli(
            "failback",
            "--consistent",
            "sales",
            "--primary",
            promotedOrders,
            "--old-source",
            orders.location,
            "--primary",
            promotedItems,
            "--old-source",
            items.location,
            "--clock-skew",
            "100ms",
            "--json");

    assertThat(run.exit).as(run.err).isZero();
    JsonNode result = MAPPER.readTree(run.out);
    String tag = result.path("cutTag").asText();
    ordersOriginal.refresh();
    Table itemsOriginal = SourceTable.TABLES.load(items.location);
    assertAtTag(tag, ordersOriginal, itemsOriginal);
    for (JsonNode table : result.path("tables")) {
      assertThat(table.path("changedAfterCut").asInt()).as(table.toString()).isZero();
    }
    assertThat(ordersOriginal.snapshot(tag).snapshotId())
        .isEqualTo(ordersOriginal.currentSnapshot().snapshotId());
    assertThat(batchesAt(itemsOriginal, itemsOriginal.snapshot(tag).snapshotId()))
        .containsExactly("batch-1", "batch-2", "batch-3");
    assertThat(result.path("tables").get(0).path("orphanTags").size()).isEqualTo(1);
    assertThat(ordersOriginal.properties()).containsEntry("replicator.read-only", "true");
  }

  /**
   * Each original's tag names its primary's snapshot as of the tag's moment, and the originals read
   * at it hold one batch set.
   */
  private void assertAtTag(String tag, Table ordersOriginal, Table itemsOriginal)
      throws IOException {
    long moment = CutTags.momentOfTag("sales", tag).getAsLong();
    ordersPrimary.table.refresh();
    itemsPrimary.table.refresh();
    assertThat(ordersOriginal.refs().get(tag).isTag()).isTrue();
    assertThat(ordersOriginal.snapshot(tag).snapshotId())
        .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(ordersPrimary.table, moment));
    assertThat(itemsOriginal.snapshot(tag).snapshotId())
        .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(itemsPrimary.table, moment));
    assertThat(batchesAt(ordersOriginal, ordersOriginal.snapshot(tag).snapshotId()))
        .as("both originals read at %s", tag)
        .isEqualTo(batchesAt(itemsOriginal, itemsOriginal.snapshot(tag).snapshotId()));
  }

  private void writeBatch(String batch) {
    ordersPrimary.table.refresh();
    ordersPrimary.append(batch, 2);
    itemsPrimary.table.refresh();
    itemsPrimary.append(batch, 3);
  }

  /** Past the next whole second: cut tags name whole seconds. */
  private static void pause() {
    try {
      Thread.sleep(1_100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Set<String> batchesAt(Table table, long snapshotId) throws IOException {
    Set<String> batches = new TreeSet<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(record -> batches.add((String) record.getField("category")));
    }
    return batches;
  }

  private static ReplicationOptions options() {
    return new ReplicationOptions(List.of(), false, 64L << 20, 4, Duration.ZERO);
  }

  private record Run(int exit, String out, String err) {}

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--settle-time", "0ms"));
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
