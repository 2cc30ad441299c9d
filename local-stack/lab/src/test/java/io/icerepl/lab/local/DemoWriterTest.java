package io.icerepl.lab.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.fixtures.EmbeddedS3FileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * The demo writer's batches, read back from the embedded S3 with the Iceberg library: each batch's
 * orders, then their items, in lockstep; a delete removes an order's items, then the order.
 */
class DemoWriterTest {

  @Test
  void everyBatchLeavesEachOrderWithItsItemsAndBothTablesAtThatBatch() throws IOException {
    try (EmbeddedAws aws = EmbeddedAws.start();
        DemoWriter writer =
            new DemoWriter(aws.s3().endpoint(), aws.sqs().client(), aws.queueUrl());
        S3FileIO io = EmbeddedS3FileIO.create(aws.s3())) {
      writer.createTables();
      // batches 1 to 9: appends, a delete (3), a schema change (5), a source-side expiry (7)
      for (int batch = 1; batch <= 9; batch++) {
        writer.commit();
        Table orders = table(io, "orders");
        Table items = table(io, "order_items");
        Map<Long, Integer> itemsPerOrder = new TreeMap<>();
        for (Record item : rows(items)) {
          itemsPerOrder.merge((Long) item.getField("order_id"), 1, Integer::sum);
        }
        Map<Long, Integer> expected = new TreeMap<>();
        for (Record order : rows(orders)) {
          expected.put((Long) order.getField("id"), DemoWriter.ITEMS_PER_ORDER);
        }
        assertThat(itemsPerOrder).as("items per order after batch %s", batch).isEqualTo(expected);
        assertThat(batch(items.currentSnapshot()))
            .as("both tables' newest snapshot after batch %s", batch)
            .isEqualTo(batch(orders.currentSnapshot()));
        if (batch == 3) {
          assertThat(orders.currentSnapshot().operation()).isEqualTo("delete");
          assertThat(items.currentSnapshot().operation()).isEqualTo("delete");
        }
      }
      // six appends of three orders, one of them deleted again
      assertThat(rows(table(io, "orders"))).hasSize(6 * DemoWriter.ORDERS_PER_BATCH - 1);
      assertThat(table(io, "orders").schema().findField("note")).isNotNull();
    }
  }

  private static Table table(S3FileIO io, String name) {
    String location = "s3://source/warehouse/demo/" + name;
    String file = VersionHint.headFile(io, location).orElseThrow();
    return new BaseTable(new StaticTableOperations(file, io), location);
  }

  private static long batch(Snapshot snapshot) {
    return Long.parseLong(snapshot.summary().get(DemoWriter.BATCH));
  }

  private static List<Record> rows(Table table) throws IOException {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.copy()));
    }
    return rows;
  }
}
