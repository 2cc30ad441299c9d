package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.LocalObjectStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one commit a group's entries move in, against real catalogs: when one entry moved since it
 * was read, the commit moves none of them, and a commit planned afresh moves all. Fails when the
 * entries are moved one commit each (the first would have moved).
 */
class EntriesTogetherCommitTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  private static final TableIdentifier ITEMS = TableIdentifier.of("sales", "order_items");

  @TempDir Path dir;

  @Test
  void aJdbcTransactionMovesEveryRowOrNone() throws Exception {
    CatalogSpec spec =
        new CatalogSpec(
            "dr",
            Map.of(
                "type",
                "jdbc",
                "uri",
                "jdbc:sqlite:" + dir.resolve("catalog.db"),
                "warehouse",
                dir.resolve("warehouse").toUri().toString()));
    Catalog catalog = IcebergCatalogs.open(spec);
    try (AutoCloseable closing = (AutoCloseable) catalog) {
      createBoth(catalog);
      JdbcRegistrar orders = jdbc(spec, catalog, ORDERS);
      JdbcRegistrar items = jdbc(spec, catalog, ITEMS);
      String ordersAt = rowOf(catalog, ORDERS);
      String itemsAt = rowOf(catalog, ITEMS);
      // order_items' row moved after it was read, by a commit through the catalog
      catalog.loadTable(ITEMS).updateProperties().set("moved", "by someone else").commit();
      String itemsMoved = rowOf(catalog, ITEMS);

      boolean moved =
          JdbcRegistrar.swapAll(
              List.of(
                  new JdbcRegistrar.Swap(orders, ordersAt, ordersAt + ".next"),
                  new JdbcRegistrar.Swap(items, itemsAt, itemsAt + ".next")));

      assertThat(moved).isFalse();
      assertThat(rowOf(catalog, ORDERS)).as("orders' row, rolled back").isEqualTo(ordersAt);
      assertThat(rowOf(catalog, ITEMS)).isEqualTo(itemsMoved);

      assertThat(
              JdbcRegistrar.swapAll(
                  List.of(
                      new JdbcRegistrar.Swap(orders, ordersAt, ordersAt + ".next"),
                      new JdbcRegistrar.Swap(items, itemsMoved, itemsMoved + ".next"))))
          .isTrue();
      assertThat(rowOf(catalog, ORDERS)).isEqualTo(ordersAt + ".next");
      assertThat(rowOf(catalog, ITEMS)).isEqualTo(itemsMoved + ".next");
    }
  }

  @Test
  void aRestMultiTableCommitMovesEveryEntryOrNone() throws Exception {
    try (LoopbackRestCatalog server =
        new LoopbackRestCatalog(
            dir.resolve("warehouse").toUri().toString(),
            "jdbc:sqlite:" + dir.resolve("catalog.db"))) {
      CatalogSpec spec = new CatalogSpec("dr", Map.of("type", "rest", "uri", server.uri()));
      Catalog catalog = IcebergCatalogs.open(spec);
      try (AutoCloseable closing = (AutoCloseable) catalog) {
        createBoth(catalog);
        List<RestRegistrar> registrars =
            List.of(rest(spec, catalog, ORDERS), rest(spec, catalog, ITEMS));
        TableMetadata ordersRead = current(catalog, ORDERS);
        TableMetadata itemsRead = current(catalog, ITEMS);
        // order_items got the cut after it was read (as by another instance's round): the
        // commit's requirement that its tag does not exist yet fails
        Table itemsTable = catalog.loadTable(ITEMS);
        itemsTable
            .manageSnapshots()
            .createTag("sales-cut", itemsTable.currentSnapshot().snapshotId())
            .commit();

        boolean moved =
            RestRegistrar.commitAll(
                registrars,
                List.of(
                    cutTagged(ORDERS, ordersRead, "sales-cut"),
                    cutTagged(ITEMS, itemsRead, "sales-cut")));

        assertThat(moved).isFalse();
        assertThat(current(catalog, ORDERS).refs())
            .as("orders, whose own requirements held")
            .doesNotContainKey("sales-cut");

        assertThat(
                RestRegistrar.commitAll(
                    registrars,
                    List.of(
                        cutTagged(ORDERS, current(catalog, ORDERS), "sales-next"),
                        cutTagged(ITEMS, current(catalog, ITEMS), "sales-next"))))
            .isTrue();
        assertThat(current(catalog, ORDERS).refs()).containsKey("sales-next");
        assertThat(current(catalog, ITEMS).refs()).containsKey("sales-next");
      }
    }
  }

  private static void createBoth(Catalog catalog) {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("sales"));
    for (TableIdentifier id : List.of(ORDERS, ITEMS)) {
      catalog.createTable(id, SCHEMA).newFastAppend().commit();
    }
  }

  /** The table's metadata with a tag at its current snapshot, as a commit the catalog checks. */
  private static TableCommit cutTagged(TableIdentifier id, TableMetadata base, String tag) {
    TableMetadata tagged =
        TableMetadata.buildFrom(base)
            .setRef(
                tag,
                org.apache.iceberg.SnapshotRef.tagBuilder(base.currentSnapshot().snapshotId())
                    .build())
            .build();
    return TableCommit.create(id, base, tagged);
  }

  /** The row's metadata location, read with SQL: the swaps may name files that do not exist. */
  private String rowOf(Catalog catalog, TableIdentifier id) throws java.sql.SQLException {
    try (java.sql.Connection connection =
            java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
        java.sql.PreparedStatement select =
            connection.prepareStatement(
                "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?"
                    + " AND table_namespace = ? AND table_name = ?")) {
      select.setString(1, catalog.name());
      select.setString(2, id.namespace().toString());
      select.setString(3, id.name());
      try (java.sql.ResultSet row = select.executeQuery()) {
        assertThat(row.next()).isTrue();
        return row.getString(1);
      }
    }
  }

  private static TableMetadata current(Catalog catalog, TableIdentifier id) {
    return ((HasTableOperations) catalog.loadTable(id)).operations().current();
  }

  private JdbcRegistrar jdbc(CatalogSpec spec, Catalog catalog, TableIdentifier id) {
    return new JdbcRegistrar(spec, catalog, id, new ReplicaVersions(new LocalObjectStore()));
  }

  private RestRegistrar rest(CatalogSpec spec, Catalog catalog, TableIdentifier id) {
    return new RestRegistrar(spec, catalog, id, new ReplicaVersions(new LocalObjectStore()));
  }
}
