package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.service.status.ReplicationState;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run of a catalog table asks the catalog where the table is while it reads the replica's side of
 * its check (the metadata folder's listing, the hint, the state), not before.
 */
class CatalogAskedWhileReplicaReadTest {
  @TempDir Path dir;

  /**
   * A JDBC catalog whose first load of a table waits (at most 10 s) until the replica's folder is
   * being listed, and records whether it was; the first listing waits the same for the load, so the
   * two done one after the other, in either order, leave one waiting in vain.
   */
  public static final class SignallingCatalog extends JdbcCatalog {
    static volatile CountDownLatch listing = new CountDownLatch(1);
    static volatile CountDownLatch asking = new CountDownLatch(1);
    static final AtomicBoolean askedDuringListing = new AtomicBoolean();
    static final AtomicBoolean listedDuringAsking = new AtomicBoolean();
    static final AtomicBoolean asked = new AtomicBoolean();

    @Override
    public Table loadTable(TableIdentifier identifier) {
      if (asked.compareAndSet(false, true)) {
        asking.countDown();
        try {
          askedDuringListing.set(listing.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.loadTable(identifier);
    }
  }

  @Test
  void theCatalogIsAskedWhileTheReplicaFolderIsListed() throws IOException {
    Map<String, String> properties = new HashMap<>();
    properties.put("uri", "jdbc:sqlite:" + dir.resolve("c.db"));
    properties.put("warehouse", dir.resolve("wh").toUri().toString());
    properties.put("jdbc.schema-version", "V1");
    SourceTable source;
    try (JdbcCatalog writer = new JdbcCatalog()) {
      writer.initialize("src", properties);
      writer.createNamespace(Namespace.of("sales"));
      source =
          SourceTable.of(
              writer.createTable(TableIdentifier.of("sales", "orders"), SourceTable.SCHEMA), 0);
      source.append("a", 3);
    }
    Map<String, String> spec = new HashMap<>(properties);
    spec.put("catalog-impl", SignallingCatalog.class.getName());
    TableRule rule = rule(new RuleCatalog(new CatalogSpec("src", spec), List.of("sales")));
    TableKey key = new TableRules(List.of(rule)).keys(rule, "sales/orders").get(0);
    ListingWaitsStore target = new ListingWaitsStore();
    StatusBoard board = new StatusBoard(Clock.systemUTC(), new SimpleMeterRegistry());
    SignallingCatalog.listing = new CountDownLatch(1);
    SignallingCatalog.asking = new CountDownLatch(1);
    SignallingCatalog.asked.set(false);

    try (CatalogClients clients = new CatalogClients();
        TableRunner runner = runner(rule, target, board, clients)) {
      runner.replicate(key);
    }

    assertThat(SignallingCatalog.askedDuringListing.get())
        .as("the catalog was asked while the replica's folder was being listed")
        .isTrue();
    assertThat(SignallingCatalog.listedDuringAsking.get())
        .as("the replica's folder was listed while the catalog was being asked")
        .isTrue();
    assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
    Table read = SourceTable.TABLES.load(key.targetLocation());
    for (Snapshot snapshot : source.table.snapshots()) {
      assertThat(SourceTable.rows(read, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
    }
  }

  private TableRule rule(RuleCatalog catalog) {
    return new TableRule(
        "sales",
        catalog.label(),
        List.of(new RuleTarget("dr", dir.resolve("replica").toUri().toString(), List.of())),
        List.of(),
        RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false),
        Optional.empty(),
        Optional.of(catalog),
        Optional.empty());
  }

  private static TableRunner runner(
      TableRule rule, ObjectStore target, StatusBoard board, CatalogClients clients) {
    StoreFactory stores =
        new StoreFactory() {
          @Override
          public ObjectStore sourceStore(String location) {
            return new LocalObjectStore();
          }

          @Override
          public ObjectStore targetStore(String location) {
            return target;
          }
        };
    return new TableRunner(
        TableContext.builder(
                stores,
                Clock.systemUTC(),
                Executors.newFixedThreadPool(2),
                ReplicationOptions.defaults(),
                new TableRules(List.of(rule)),
                board)
            .catalogs(clients)
            .build());
  }

  /** A local store that tells when a folder is being listed, its first listing waiting. */
  private static final class ListingWaitsStore extends ForwardingObjectStore {
    private final AtomicBoolean listed = new AtomicBoolean();

    ListingWaitsStore() {
      super(new LocalObjectStore());
    }

    @Override
    public List<String> list(String folder) throws IOException {
      SignallingCatalog.listing.countDown();
      if (listed.compareAndSet(false, true)) {
        try {
          SignallingCatalog.listedDuringAsking.set(
              SignallingCatalog.asking.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
      return super.list(folder);
    }
  }
}
