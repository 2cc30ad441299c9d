package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.merge.group.CutTags;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A replication group whose replicas are registered in a target catalog that moves several tables
 * at once: a JDBC catalog on SQLite, or Iceberg's REST catalog server. Two tables written in
 * lockstep by the Iceberg library are replicated while the cut moves; read through the catalog with
 * the Iceberg library, both entries show the same newest cut, each table at it holds the source's
 * snapshot of its moment, and a table whose cut is not moving keeps its entry at its newest
 * replicated version. For JDBC, a reader of both rows in one query never finds one table at a newer
 * cut than the other while the cut moves.
 */
class GroupCatalogServiceTest {
  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  private static final TableIdentifier ITEMS = TableIdentifier.of("sales", "order_items");

  @ParameterizedTest
  @ValueSource(strings = {"jdbc", "rest"})
  void theGroupsEntriesMoveToEachCutTogether(String kind) throws Exception {
    Path dir = Files.createTempDirectory("group-catalog");
    String database = "jdbc:sqlite:" + dir.resolve(kind + ".db");
    try (ServiceOnS3 fixture = new ServiceOnS3();
        LoopbackRestCatalog server =
            kind.equals("rest")
                ? new LoopbackRestCatalog(
                    "s3://replica/warehouse",
                    database,
                    EmbeddedS3FileIO.catalogProperties(fixture.s3))
                : null) {
      Table orders = fixture.warehouse.createSample("sales", "orders");
      Table items = fixture.warehouse.createSample("sales", "order_items");
      ServiceOnS3.append(orders, "batch-0", 2);
      ServiceOnS3.append(items, "batch-0", 3);
      String catalog =
          kind.equals("jdbc")
              ? "name=dr,type=jdbc,uri="
                  + database
                  + ",warehouse=s3://replica/warehouse,jdbc.schema-version=V1"
              : "name=dr,type=rest,uri=" + server.uri();
      RunningService service =
          fixture.start(
              Map.of(
                  "replicator.rules[0].targets[0].catalog", catalog,
                  "replicator.settle-time", "PT0.2S",
                  "replicator.groups[0].name", "sales",
                  "replicator.groups[0].target", "a",
                  "replicator.groups[0].tables[0]", "sales/orders",
                  "replicator.groups[0].tables[1]", "sales/order_items",
                  "replicator.groups[0].clock-skew", "PT0.1S",
                  "replicator.groups[0].tag-interval", "PT0.3S",
                  "replicator.groups[0].keep-tags", "PT1H"));
      S3FileIO io = fixture.io();

      // for JDBC, both rows read in one query while the writer commits and the cut moves
      AtomicBoolean writing = new AtomicBoolean(true);
      List<List<String>> seen = new CopyOnWriteArrayList<>();
      // a reader that dies stops observing: its failure fails the test, not a shorter record
      AtomicReference<Throwable> readerFailed = new AtomicReference<>();
      Thread reader =
          new Thread(
              () -> {
                try {
                  while (writing.get()) {
                    readBothRows(database, io).ifPresent(seen::add);
                    sleep(20);
                  }
                } catch (Throwable e) {
                  readerFailed.set(e);
                }
              });
      reader.setDaemon(true);
      if (kind.equals("jdbc")) {
        reader.start();
      }
      for (int batch = 1; batch <= 8; batch++) {
        ServiceOnS3.append(orders, "batch-" + batch, 2);
        sleep(200);
        ServiceOnS3.append(items, "batch-" + batch, 3);
        sleep(600);
      }
      long lastCommit = items.currentSnapshot().timestampMillis();
      String cutTag = awaitCutTagAfter(service, lastCommit);

      Catalog reading = targetCatalog(kind, database, server, fixture);
      try (AutoCloseable closing = (AutoCloseable) reading) {
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .untilAsserted(
                () -> {
                  assertThat(newestCut(reading, ORDERS)).isEqualTo(cutTag);
                  assertThat(newestCut(reading, ITEMS)).isEqualTo(cutTag);
                });
        long moment = CutTags.momentOfTag("sales", cutTag).getAsLong();
        orders.refresh();
        items.refresh();
        Table ordersEntry = reading.loadTable(ORDERS);
        Table itemsEntry = reading.loadTable(ITEMS);
        assertThat(ordersEntry.snapshot(cutTag).snapshotId())
            .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(orders, moment));
        assertThat(itemsEntry.snapshot(cutTag).snapshotId())
            .isEqualTo(SnapshotUtil.snapshotIdAsOfTime(items, moment));
        assertThat(batches(ordersEntry, cutTag))
            .as("both tables read through the catalog at %s", cutTag)
            .isEqualTo(batches(itemsEntry, cutTag))
            .contains("batch-8");

        // order_items fails: the cut stands, and orders' entry still follows its replica
        try (S3Client client = fixture.s3.client()) {
          client.putObject(
              b ->
                  b.bucket("source")
                      .key("warehouse/sales/order_items/metadata/99999-broken.metadata.json"),
              RequestBody.fromString("{not json"));
        }
        fixture.awaitState("/api/replications/a/sales/order_items", "FAILED");
        ServiceOnS3.append(orders, "batch-9", 2);
        long latest = orders.currentSnapshot().snapshotId();
        await()
            .atMost(ServiceOnS3.PATIENCE)
            .untilAsserted(
                () ->
                    assertThat(current(reading, ORDERS).currentSnapshot().snapshotId())
                        .isEqualTo(latest));
        assertThat(newestCut(reading, ORDERS)).isEqualTo(newestCut(reading, ITEMS));
      }

      writing.set(false);
      if (kind.equals("jdbc")) {
        reader.join();
        assertThat(readerFailed.get()).as("the catalog's reader failed").isNull();
        assertThat(seen).as("observations of both rows").isNotEmpty();
        assertThat(seen)
            .as("no reader of the catalog finds one table at a newer cut than the other")
            .allSatisfy(cuts -> assertThat(cuts.get(0)).isEqualTo(cuts.get(1)));
        assertThat(seen.stream().map(cuts -> cuts.get(0)).distinct().count())
            .as("cuts the reader saw the entries move through, in %s", seen)
            .isGreaterThanOrEqualTo(3);
      }
    }
  }

  /**
   * Both rows of the JDBC catalog in one query: each table's newest cut tag, when both have one.
   */
  private static java.util.Optional<List<String>> readBothRows(String database, S3FileIO io) {
    Map<String, String> rows = new HashMap<>();
    try (Connection connection = DriverManager.getConnection(database);
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT table_name, metadata_location FROM iceberg_tables"
                    + " WHERE catalog_name = 'dr' AND table_namespace = 'sales'")) {
      while (result.next()) {
        rows.put(result.getString(1), result.getString(2));
      }
    } catch (java.sql.SQLException e) {
      return java.util.Optional.empty(); // not created yet, or busy: read again
    }
    if (!rows.containsKey("orders") || !rows.containsKey("order_items")) {
      return java.util.Optional.empty();
    }
    String ordersCut = newestCut(TableMetadataParser.read(io, rows.get("orders")));
    String itemsCut = newestCut(TableMetadataParser.read(io, rows.get("order_items")));
    return ordersCut == null && itemsCut == null
        ? java.util.Optional.empty()
        : java.util.Optional.of(java.util.Arrays.asList(ordersCut, itemsCut));
  }

  private static String newestCut(Catalog catalog, TableIdentifier id) {
    return newestCut(current(catalog, id));
  }

  private static String newestCut(TableMetadata metadata) {
    var newest = CutTags.newest("sales", metadata.refs().keySet());
    return newest.isPresent() ? CutTags.name("sales", newest.getAsLong()) : null;
  }

  private static TableMetadata current(Catalog catalog, TableIdentifier id) {
    return ((HasTableOperations) catalog.loadTable(id)).operations().current();
  }

  private static String awaitCutTagAfter(RunningService service, long commitMs) {
    String[] tag = new String[1];
    await()
        .atMost(ServiceOnS3.PATIENCE)
        .untilAsserted(
            () -> {
              String cutTag = service.http.get("/api/groups/sales").json().path("cutTag").asText();
              assertThat(CutTags.momentOfTag("sales", cutTag).orElse(Long.MIN_VALUE))
                  .isGreaterThan(commitMs);
              tag[0] = cutTag;
            });
    return tag[0];
  }

  private static Set<String> batches(Table table, String ref) throws java.io.IOException {
    Set<String> batches = new TreeSet<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(table.snapshot(ref).snapshotId()).build()) {
      records.forEach(record -> batches.add((String) record.getField("category")));
    }
    return batches;
  }

  private static Catalog targetCatalog(
      String kind, String database, LoopbackRestCatalog server, ServiceOnS3 fixture) {
    Map<String, String> properties = new HashMap<>(EmbeddedS3FileIO.catalogProperties(fixture.s3));
    if (kind.equals("jdbc")) {
      JdbcCatalog catalog = new JdbcCatalog();
      properties.put("uri", database);
      properties.put("warehouse", "s3://replica/warehouse");
      properties.put("jdbc.schema-version", "V1");
      catalog.initialize("dr", properties);
      return catalog;
    }
    RESTCatalog catalog = new RESTCatalog();
    properties.put("uri", server.uri());
    catalog.initialize("dr", properties);
    return catalog;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
