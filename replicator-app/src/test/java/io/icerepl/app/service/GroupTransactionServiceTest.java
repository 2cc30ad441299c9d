package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.group.CutTags;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sources written by multi-table transactions: each batch is committed to {@code orders} and {@code
 * order_items} in one commit of Iceberg's REST catalog ({@code RESTCatalog.commitTransaction}), its
 * two snapshots stamped 300 ms apart (a slow writer: the protocol's multi-table commit lands a
 * transaction's snapshots with the stamps its writer gave them). With the group's {@code
 * transaction-window} wider than that, every cut tag the service writes, read on both replicas with
 * the Iceberg library, holds each batch in both tables or in neither.
 */
class GroupTransactionServiceTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));

  /** How far apart a transaction's two snapshots are stamped: a slow writer's transaction. */
  private static final long SPREAD_MS = 300;

  /**
   * The group's transaction window: wider than the spread by the time the second snapshot's
   * manifests take to write on a loaded machine.
   */
  private static final java.time.Duration WINDOW = java.time.Duration.ofMillis(1000);

  /**
   * Between transactions: the quiet moments a cut is tagged at are whole seconds with no snapshot
   * in the window before them, so the gaps are made wider than the window by most of a second.
   */
  private static final long PAUSE_MS = 1700;

  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  private static final TableIdentifier ITEMS = TableIdentifier.of("sales", "order_items");

  @Test
  void everyCutTagHoldsAMultiTableTransactionInBothTablesOrInNeither(@TempDir Path dir)
      throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start()) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Map<String, String> io = EmbeddedS3FileIO.catalogProperties(s3);
      try (LoopbackRestCatalog server =
              new LoopbackRestCatalog(
                  "s3://source/wh", "jdbc:sqlite:" + dir.resolve("source.db"), io);
          RESTCatalog source = new RESTCatalog()) {
        Map<String, String> client = new HashMap<>(io);
        client.put("uri", server.uri());
        source.initialize("prod", client);
        source.createNamespace(Namespace.of("sales"));
        source.createTable(ORDERS, SCHEMA, PartitionSpec.unpartitioned());
        source.createTable(ITEMS, SCHEMA, PartitionSpec.unpartitioned());
        transaction(source, 0);

        Map<String, String> properties = new HashMap<>();
        properties.put("replicator.rules[0].name", "sales");
        properties.put(
            "replicator.rules[0].source-catalog", "name=prod,type=rest,uri=" + server.uri());
        properties.put("replicator.rules[0].namespaces[0]", "sales");
        properties.put("replicator.rules[0].targets[0].name", "a");
        properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/wh");
        for (String side : List.of("source", "target")) {
          properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
          properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
          properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
          properties.put("replicator.s3." + side + ".path-style", "true");
        }
        properties.put("replicator.reconciliation-interval", "PT0.5S");
        properties.put("replicator.groups[0].name", "sales");
        properties.put("replicator.groups[0].target", "a");
        properties.put("replicator.groups[0].tables[0]", "sales/orders");
        properties.put("replicator.groups[0].tables[1]", "sales/order_items");
        // the allowance covers how long a writer takes from stamping its snapshot to committing it,
        // which on a loaded machine is well over a tenth of a second
        properties.put("replicator.groups[0].clock-skew", "PT1S");
        properties.put("replicator.groups[0].tag-interval", "PT0.3S");
        properties.put("replicator.groups[0].transaction-window", WINDOW.toString());
        properties.put("replicator.groups[0].keep-tags", "PT1H");

        try (RunningService service = RunningService.start(properties)) {
          long last = 0;
          List<Long> spreads = new ArrayList<>();
          for (int batch = 1; batch <= 8; batch++) {
            long[] stamped = transaction(source, batch);
            spreads.add(stamped[1] - stamped[0]);
            last = stamped[1];
            Thread.sleep(PAUSE_MS);
          }
          assertThat(spreads)
              .as("each transaction's stamps lie within the transaction window, as this test needs")
              .allMatch(spread -> spread < WINDOW.toMillis());
          long lastCommit = last;
          await()
              .atMost(ServiceOnS3.PATIENCE)
              .untilAsserted(
                  () ->
                      assertThat(
                              CutTags.momentOfTag(
                                      "sales",
                                      service
                                          .http
                                          .get("/api/groups/sales")
                                          .json()
                                          .path("cutTag")
                                          .asText())
                                  .orElse(Long.MIN_VALUE))
                          .isGreaterThan(lastCommit));
        }

        S3FileIO files = new S3FileIO();
        files.initialize(io);
        Table orders = HintedReplica.open(files, "s3://replica/wh/sales/orders");
        Table items = HintedReplica.open(files, "s3://replica/wh/sales/order_items");
        List<String> tags =
            orders.refs().keySet().stream()
                .filter(name -> CutTags.momentOfTag("sales", name).isPresent())
                .filter(items.refs()::containsKey)
                .sorted()
                .toList();
        assertThat(tags).as("cut tags on both replicas").hasSizeGreaterThanOrEqualTo(3);
        Set<Set<String>> distinct = new java.util.HashSet<>();
        for (String tag : tags) {
          Set<String> batches = batches(orders, tag);
          assertThat(batches)
              .as("the transactions on both replicas at %s", tag)
              .isEqualTo(batches(items, tag));
          distinct.add(batches);
        }
        assertThat(distinct).as("cuts between the transactions").hasSizeGreaterThanOrEqualTo(3);
      }
    }
  }

  /**
   * One batch committed to both tables by one multi-table commit, its second snapshot produced
   * {@link #SPREAD_MS} after the first. Both tables are loaded and both data files written first,
   * so that only the second snapshot's own manifests lie between the stamps besides the pause,
   * however loaded the machine.
   *
   * @return the two snapshots' timestamps
   */
  private static long[] transaction(RESTCatalog catalog, int batch) throws InterruptedException {
    List<TableIdentifier> ids = List.of(ORDERS, ITEMS);
    List<Table> tables = new ArrayList<>();
    List<DataFile> files = new ArrayList<>();
    for (TableIdentifier id : ids) {
      Table table = catalog.loadTable(id);
      GenericRecord record = GenericRecord.create(SCHEMA);
      record.setField("id", (long) batch);
      record.setField("data", "batch-" + batch);
      tables.add(table);
      files.add(TableWrites.writeData(table, null, List.<Record>of(record)));
    }
    // A loaded machine can stall the second snapshot's manifests past the window; such a try is
    // dropped before it is committed (its manifests stay unnamed), so every committed transaction
    // is stamped within the window, as the test needs, however loaded the machine.
    for (int attempt = 1; ; attempt++) {
      long[] stamped = new long[ids.size()];
      List<TableCommit> commits = stampedCommits(ids, tables, files, stamped);
      if (stamped[ids.size() - 1] - stamped[0] < WINDOW.toMillis() - 100 || attempt == 20) {
        catalog.commitTransaction(commits);
        return stamped;
      }
    }
  }

  private static List<TableCommit> stampedCommits(
      List<TableIdentifier> ids, List<Table> tables, List<DataFile> files, long[] stamped)
      throws InterruptedException {
    List<TableCommit> commits = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      if (i > 0) {
        Thread.sleep(SPREAD_MS);
      }
      Table table = tables.get(i);
      TableMetadata base = ((HasTableOperations) table).operations().current();
      Snapshot snapshot = table.newAppend().appendFile(files.get(i)).apply();
      stamped[i] = snapshot.timestampMillis();
      commits.add(
          TableCommit.create(
              ids.get(i),
              base,
              TableMetadata.buildFrom(base).setBranchSnapshot(snapshot, "main").build()));
    }
    return commits;
  }

  private static Set<String> batches(Table table, String ref) throws java.io.IOException {
    Set<String> batches = new TreeSet<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(table.snapshot(ref).snapshotId()).build()) {
      records.forEach(record -> batches.add((String) record.getField("data")));
    }
    return batches;
  }
}
