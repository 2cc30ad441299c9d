package io.icerepl.lab.cli;

import io.icerepl.lab.local.DemoWriter;
import io.icerepl.lab.local.VersionHint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code check-orders}: reads the demo's {@code orders} and {@code order_items} at their {@code
 * main} with the Iceberg library and says whether they show one batch of the demo writer: every
 * order with its items, no item without its order, both tables' newest snapshots of one batch.
 */
@Command(
    name = "check-orders",
    mixinStandardHelpOptions = true,
    description = {
      "Reads serve --local's demo/orders and demo/order_items (or their replicas) at main with the",
      "Iceberg library: whether both show one batch of the demo writer, every order with its items",
      "and no item without its order. Credentials come from the default chain (AWS_ACCESS_KEY_ID, ...)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  replicator-lab check-orders --endpoint http://127.0.0.1:40123 --path-style \\",
      "      --orders s3://replica/warehouse/demo/orders --items s3://replica/warehouse/demo/order_items"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:both tables at one batch", "1:not at one batch, or unreadable"})
final class OrdersCheckCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--orders", required = true, paramLabel = "<location>")
  String orders;

  @Option(names = "--items", required = true, paramLabel = "<location>")
  String items;

  @Option(names = "--endpoint", paramLabel = "<url>", description = "S3 endpoint.")
  URI endpoint;

  @Option(names = "--region", paramLabel = "<region>", description = "S3 region.")
  String region = "us-east-1";

  @Option(names = "--path-style", description = "Path-style S3 addressing.")
  boolean pathStyle;

  /** One table as its main shows it: its newest snapshot's batch and the order ids it holds. */
  private record Read(Snapshot snapshot, String batch, Set<Long> orderIds, long rows) {}

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (S3FileIO io = new S3FileIO()) {
      Map<String, String> properties = new HashMap<>();
      properties.put("client.region", region);
      if (endpoint != null) {
        properties.put("s3.endpoint", endpoint.toString());
      }
      if (pathStyle) {
        properties.put("s3.path-style-access", "true");
      }
      io.initialize(properties);
      Read ordersRead = read(io, orders, "id");
      Read itemsRead = read(io, items, "order_id");
      Set<Long> itemsWithoutOrder = new TreeSet<>(itemsRead.orderIds());
      itemsWithoutOrder.removeAll(ordersRead.orderIds());
      Set<Long> ordersWithoutItems = new TreeSet<>(ordersRead.orderIds());
      ordersWithoutItems.removeAll(itemsRead.orderIds());
      boolean oneBatch =
          ordersRead.batch().equals(itemsRead.batch())
              && itemsWithoutOrder.isEmpty()
              && ordersWithoutItems.isEmpty();
      line(out, "orders", describe(orders, ordersRead, "orders"));
      line(out, "order items", describe(items, itemsRead, "items"));
      line(out, "items without order", ids(itemsWithoutOrder));
      line(out, "orders without items", ids(ordersWithoutItems));
      line(out, "at one batch", oneBatch ? "yes, batch " + ordersRead.batch() : "no");
      out.flush();
      return oneBatch ? 0 : 1;
    }
  }

  private static Read read(S3FileIO io, String location, String idColumn) {
    String file =
        VersionHint.headFile(io, location)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Cannot read " + location + ": no metadata/version-hint.text"));
    Table table = new BaseTable(new StaticTableOperations(file, io), location);
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return new Read(null, "none", Set.of(), 0);
    }
    Set<Long> ids = new TreeSet<>();
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        ids.add((Long) record.getField(idColumn));
        rows++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + location, e);
    }
    return new Read(snapshot, snapshot.summary().getOrDefault(DemoWriter.BATCH, "none"), ids, rows);
  }

  private static String describe(String location, Read read, String rows) {
    if (read.snapshot() == null) {
      return location + ": no snapshot";
    }
    return location
        + " at snapshot "
        + read.snapshot().snapshotId()
        + ", batch "
        + read.batch()
        + ": "
        + read.rows()
        + " "
        + rows;
  }

  private static String ids(Set<Long> ids) {
    return ids.isEmpty() ? "none" : ids.size() + " " + ids;
  }

  private static void line(PrintWriter out, String label, String value) {
    out.printf("%-22s %s%n", label, value);
  }
}
