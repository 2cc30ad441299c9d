package io.icerepl.merge.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cuts across two tables written in lockstep by the Iceberg library, each batch committed to {@code
 * orders} and then to {@code order_items} with its batch id in the snapshot summary. What each cut
 * picks is checked against Iceberg's own time travel ({@code SnapshotUtil.snapshotIdAsOfTime}, what
 * {@code TIMESTAMP AS OF} reads) and for consistency: at no cut do the items hold a batch the
 * orders lack, and the orders hold at most the one batch whose items were being committed.
 */
class GroupCutTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @Test
  void atEveryMomentEachTableIsAtItsSnapshotOfThatMomentAndTheBatchesAgree(@TempDir Path dir)
      throws Exception {
    Table orders = table(dir, "orders");
    Table items = table(dir, "order_items");
    for (int batch = 1; batch <= 6; batch++) {
      append(orders, batch);
      append(items, batch);
    }
    TableMetadata ordersMetadata = read(orders);
    TableMetadata itemsMetadata = read(items);
    long first = orders.history().get(0).timestampMillis();
    long last = items.currentSnapshot().timestampMillis();

    int checked = 0;
    for (long at = first - 2; at <= last + 2; at++) {
      GroupCut cut =
          GroupCut.of(
              List.of(
                  new GroupMember("orders", at, ordersMetadata),
                  new GroupMember("order_items", at, itemsMetadata)),
              Duration.ZERO);
      assertThat(cut.cutMs()).isEqualTo(at);
      OptionalLong ordersAt = cut.snapshotIds().get("orders");
      OptionalLong itemsAt = cut.snapshotIds().get("order_items");
      assertThat(ordersAt).as("orders at %d", at).isEqualTo(icebergAsOf(orders, at));
      assertThat(itemsAt).as("order_items at %d", at).isEqualTo(icebergAsOf(items, at));

      Set<Integer> orderBatches = batches(orders, ordersAt);
      Set<Integer> itemBatches = batches(items, itemsAt);
      assertThat(orderBatches).as("at %d", at).containsAll(itemBatches);
      Set<Integer> withoutItems = new TreeSet<>(orderBatches);
      withoutItems.removeAll(itemBatches);
      assertThat(withoutItems)
          .as("orders without items at %d: only the batch in flight", at)
          .hasSizeLessThanOrEqualTo(1);
      withoutItems.forEach(batch -> assertThat(batch).isEqualTo(orderBatches.size()));
      checked++;
    }
    assertThat(checked).isGreaterThan(12);
  }

  @Test
  void theCutIsTheTableKnownCurrentLeastRecentlyAndTheAllowanceReadsEarlier(@TempDir Path dir)
      throws Exception {
    Table orders = table(dir, "orders");
    Table items = table(dir, "order_items");
    append(orders, 1);
    append(items, 1);
    append(orders, 2);
    append(items, 2);
    long batchTwoItems = items.currentSnapshot().timestampMillis();
    long later = batchTwoItems + 1000;

    GroupCut cut =
        GroupCut.of(
            List.of(
                new GroupMember("orders", later, read(orders)),
                new GroupMember("order_items", batchTwoItems, read(items))),
            Duration.ZERO);
    assertThat(cut.cutMs()).isEqualTo(batchTwoItems);
    assertThat(cut.heldBackBy()).isEqualTo("order_items");
    assertThat(batches(orders, cut.snapshotIds().get("orders"))).containsExactly(1, 2);
    assertThat(batches(items, cut.snapshotIds().get("order_items"))).containsExactly(1, 2);

    long skew = batchTwoItems - items.snapshots().iterator().next().timestampMillis();
    GroupCut allowed =
        GroupCut.of(
            List.of(
                new GroupMember("orders", later, read(orders)),
                new GroupMember("order_items", batchTwoItems, read(items))),
            Duration.ofMillis(skew));
    assertThat(allowed.cutMs()).isEqualTo(batchTwoItems);
    assertThat(batches(items, allowed.snapshotIds().get("order_items")))
        .as("taken as of the cut less the allowance")
        .containsExactly(1);
  }

  /**
   * The cut tag names the cut less the allowance, rounded down to its second: a commit stamped
   * within the allowance before the cut (by a writer whose clock runs behind) is not at the tag.
   */
  @Test
  void theCutTagsMomentIsTheCutLessTheAllowanceRoundedDownToItsSecond(@TempDir Path dir)
      throws Exception {
    Table items = table(dir, "order_items");
    append(items, 1);
    append(items, 2);
    long secondAt = items.currentSnapshot().timestampMillis();
    // half a second into the second after batch 2's: without the allowance its tag shows batch 2
    long cutMs = CutTags.momentOf(secondAt) + 1500;
    long allowance = cutMs - secondAt + 1;
    TableMetadata metadata = read(items);

    GroupCut unallowed =
        GroupCut.of(List.of(new GroupMember("order_items", cutMs, metadata)), Duration.ZERO);
    assertThat(unallowed.tagMomentMs()).isEqualTo(CutTags.momentOf(cutMs));
    assertThat(batches(items, MainAt.snapshotAt(metadata, unallowed.tagMomentMs())))
        .containsExactly(1, 2);
    GroupCut cut =
        GroupCut.of(
            List.of(new GroupMember("order_items", cutMs, metadata)), Duration.ofMillis(allowance));
    assertThat(cut.tagMomentMs()).isEqualTo(CutTags.momentOf(secondAt - 1));
    assertThat(batches(items, MainAt.snapshotAt(metadata, cut.tagMomentMs())))
        .as("batch 2 was stamped within the allowance before the cut: not at its tag")
        .doesNotContain(2);
  }

  @Test
  void aRollbackIsSeenAsTheTablesReadersSawIt(@TempDir Path dir) throws Exception {
    Table items = table(dir, "order_items");
    append(items, 1);
    long first = items.currentSnapshot().snapshotId();
    append(items, 2);
    append(items, 3);
    long third = items.currentSnapshot().snapshotId();
    long beforeRollback = items.currentSnapshot().timestampMillis();
    pause();
    items.manageSnapshots().rollbackTo(first).commit();
    long rolledBack = System.currentTimeMillis();
    pause();
    append(items, 4);
    TableMetadata metadata = read(items);

    assertThat(MainAt.snapshotAt(metadata, beforeRollback))
        .as("batch 3 was current until the rollback, though no longer an ancestor of main")
        .isEqualTo(icebergAsOf(items, beforeRollback))
        .hasValue(third);
    OptionalLong at = MainAt.snapshotAt(metadata, rolledBack);
    assertThat(at).isEqualTo(icebergAsOf(items, rolledBack)).hasValue(first);
    assertThat(batches(items, MainAt.snapshotAt(metadata, Long.MAX_VALUE))).containsExactly(1, 4);
  }

  @Test
  void aMomentBeforeTheHistoryTheReplicaKeepsHasNoSnapshot(@TempDir Path dir) throws Exception {
    Table items = table(dir, "order_items");
    append(items, 1);
    long firstAt = items.currentSnapshot().timestampMillis();
    append(items, 2);
    append(items, 3);
    items.expireSnapshots().expireOlderThan(Long.MAX_VALUE).retainLast(1).commit();
    TableMetadata metadata = read(items);

    assertThat(MainAt.snapshotAt(metadata, firstAt - 1)).isEmpty();
    assertThat(MainAt.snapshotAt(metadata, firstAt))
        .as("batch 1's snapshot is expired: the replica cannot show that moment")
        .isEmpty();
    assertThat(MainAt.snapshotAt(metadata, Long.MAX_VALUE))
        .hasValue(items.currentSnapshot().snapshotId());
  }

  /**
   * Each batch lands in both tables as a multi-table transaction does: one snapshot per table, the
   * second stamped some 20 ms after the first, the batches some 300 ms apart. Read at every
   * millisecond, a cut with a transaction window wider than the widest batch (measured, since a
   * loaded machine stretches it) never shows a batch in one table alone, and its tag moment is a
   * whole second that does not either; without the window, the moments between the two stamps do.
   */
  @Test
  void aTransactionWindowKeepsEveryCutOutOfAMultiTableTransaction(@TempDir Path dir)
      throws Exception {
    Table orders = null;
    Table items = null;
    long spread = 0;
    long gap = Long.MAX_VALUE;
    // a loaded machine stretches a commit: the pause between batches grows with the widest batch
    // so far, and the history is written again (up to three times) until the batches lie apart
    for (int attempt = 0; attempt < 3 && (attempt == 0 || gap <= spread + 10); attempt++) {
      orders = table(dir.resolve("attempt-" + attempt), "orders");
      items = table(dir.resolve("attempt-" + attempt), "order_items");
      spread = 0;
      gap = Long.MAX_VALUE;
      for (int batch = 1; batch <= 6; batch++) {
        append(orders, batch);
        if (batch > 1) {
          gap = Math.min(gap, orders.currentSnapshot().timestampMillis() - last(items));
        }
        Thread.sleep(20);
        append(items, batch);
        spread = Math.max(spread, last(items) - orders.currentSnapshot().timestampMillis());
        Thread.sleep(Math.max(300, 3 * spread));
      }
    }
    Duration window = Duration.ofMillis(spread + 10);
    assertThat(gap)
        .as("the quiet time between batches is wider than the window (%d ms)", window.toMillis())
        .isGreaterThan(window.toMillis());
    TableMetadata ordersMetadata = read(orders);
    TableMetadata itemsMetadata = read(items);
    long first = orders.history().get(0).timestampMillis();
    long last = items.currentSnapshot().timestampMillis();

    int split = 0;
    for (long at = first - 2; at <= last + 2; at++) {
      List<GroupMember> members =
          List.of(
              new GroupMember("orders", at, ordersMetadata),
              new GroupMember("order_items", at, itemsMetadata));
      GroupCut unguarded = GroupCut.of(members, Duration.ZERO);
      if (!batches(orders, unguarded.snapshotIds().get("orders"))
          .equals(batches(items, unguarded.snapshotIds().get("order_items")))) {
        split++;
      }
      GroupCut cut = GroupCut.of(members, Duration.ZERO, window);
      assertThat(cut.readAtMs()).isLessThanOrEqualTo(at);
      assertThat(batches(orders, cut.snapshotIds().get("orders")))
          .as("the batches of both tables at %d, read at %d", at, cut.readAtMs())
          .isEqualTo(batches(items, cut.snapshotIds().get("order_items")));
      assertThat(cut.tagMomentMs() % 1000).isZero();
      assertThat(batches(orders, MainAt.snapshotAt(ordersMetadata, cut.tagMomentMs())))
          .as("the batches of both tables at the tag moment %d", cut.tagMomentMs())
          .isEqualTo(batches(items, MainAt.snapshotAt(itemsMetadata, cut.tagMomentMs())));
    }
    assertThat(split).as("moments at which a cut without the window splits a batch").isPositive();
  }

  @Test
  void aGroupNeedsATableAndANonNegativeAllowance() {
    assertThatThrownBy(() -> GroupCut.of(List.of(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A group needs at least one table");
  }

  private static long last(Table table) {
    return table.currentSnapshot().timestampMillis();
  }

  private static Table table(Path dir, String name) {
    return new HadoopTables(new Configuration())
        .create(SCHEMA, PartitionSpec.unpartitioned(), dir.resolve(name).toUri().toString());
  }

  /** One batch, committed with its id in the snapshot summary, a few milliseconds apart. */
  private static void append(Table table, int batch) throws InterruptedException {
    pause();
    DataFile file =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(table.location() + "/data/batch-" + batch + ".parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(100)
            .withRecordCount(1)
            .build();
    table.newAppend().appendFile(file).set("batch", Integer.toString(batch)).commit();
  }

  private static void pause() throws InterruptedException {
    Thread.sleep(3);
  }

  private static TableMetadata read(Table table) throws IOException {
    String file =
        ((org.apache.iceberg.HasTableOperations) table)
            .operations()
            .current()
            .metadataFileLocation();
    try (InputStream in = Files.newInputStream(Path.of(java.net.URI.create(file)))) {
      return TableMetadataParser.read(in, file, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES);
    }
  }

  private static OptionalLong icebergAsOf(Table table, long at) {
    try {
      return OptionalLong.of(SnapshotUtil.snapshotIdAsOfTime(table, at));
    } catch (IllegalArgumentException none) {
      return OptionalLong.empty();
    }
  }

  /** The batches a reader of the table at this snapshot sees: its ancestry's summaries. */
  private static Set<Integer> batches(Table table, OptionalLong snapshotId) {
    Set<Integer> batches = new TreeSet<>();
    if (snapshotId.isEmpty()) {
      return batches;
    }
    for (Snapshot s : SnapshotUtil.ancestorsOf(snapshotId.getAsLong(), table::snapshot)) {
      batches.add(Integer.parseInt(s.summary().get("batch")));
    }
    return batches;
  }
}
