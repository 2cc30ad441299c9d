package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.app.engine.S3CommandFixture.Run;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.merge.merge.ReplicaProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disaster-recovery drill on two embedded S3 stores, each region with its JDBC catalog: a table
 * written through the source catalog is replicated and registered in the target's; the source's S3
 * stops with two commits never replicated; the replica is promoted through its catalog and written
 * on there; the source comes back, and fail-back makes the original a replica of the promoted
 * table, its catalog entry included, keeping the two orphan commits under the tag it prints; the
 * original is promoted again through its catalog (switch-back), and replicating it ends the
 * replica's promotion, its entry read-only again at the switched-back line.
 */
class S3CatalogDrDrillTest {
  private static final TableIdentifier ID = TableIdentifier.of("sales", "orders");
  private static final String REPLICA = "s3://replica/warehouse/sales/orders";
  private static final Pattern TAG = Pattern.compile("orphan tag +(\\S+) -> (\\d+)");

  @TempDir Path dir;

  @BeforeEach
  void credentials() {
    S3CommandFixture.setCredentials();
  }

  @AfterEach
  void clearCredentials() {
    S3CommandFixture.clearCredentials();
  }

  @Test
  void failoverFailBackAndSwitchBackThroughTheCatalogsLoseNoCommit() throws Exception {
    Path sourceFolder = Files.createDirectories(dir.resolve("source-s3"));
    String sourceDatabase = "jdbc:sqlite:" + dir.resolve("source.db");
    String targetDatabase = "jdbc:sqlite:" + dir.resolve("target.db");
    String sourceCatalog =
        "name=src,type=jdbc,uri=" + sourceDatabase + ",warehouse=s3://source/warehouse";
    String targetCatalog =
        "name=dr,type=jdbc,uri=" + targetDatabase + ",warehouse=s3://replica/warehouse";
    Map<Long, List<String>> expected = new LinkedHashMap<>();

    EmbeddedS3 sourceS3 = EmbeddedS3.start(sourceFolder, 0);
    int sourcePort = sourceS3.endpoint().getPort();
    boolean sourceLost = false;
    try (EmbeddedS3 replicaS3 = EmbeddedS3.start();
        JdbcCatalog sourceWriters =
            catalog("src", sourceDatabase, "s3://source/warehouse", sourceS3);
        JdbcCatalog targetWriters =
            catalog("dr", targetDatabase, "s3://replica/warehouse", replicaS3);
        S3FileIO replicaIo = EmbeddedS3FileIO.create(replicaS3)) {
      sourceS3.createBucket("source");
      replicaS3.createBucket("replica");
      String[] stores = {
        "--source-endpoint",
        sourceS3.endpoint().toString(),
        "--target-endpoint",
        replicaS3.endpoint().toString(),
        "--path-style",
        "--settle-time",
        "0s"
      };
      // fail-back runs the other way: the promoted table is its source
      String[] backStores = {
        "--source-endpoint",
        replicaS3.endpoint().toString(),
        "--target-endpoint",
        sourceS3.endpoint().toString(),
        "--path-style",
        "--settle-time",
        "0s"
      };

      // the writer on the source, through its catalog
      sourceWriters.createNamespace(Namespace.of("sales"));
      SourceTable source =
          SourceTable.of(
              sourceWriters.createTable(
                  ID,
                  SourceTable.SCHEMA,
                  PartitionSpec.builderFor(SourceTable.SCHEMA).identity("category").build(),
                  Map.of(TableProperties.FORMAT_VERSION, "2")),
              1);
      String original = source.location;
      assertThat(original).isEqualTo("s3://source/warehouse/sales/orders");
      DataFile first = source.append("a", 3);
      source.append("b", 2);
      source.deletePositions(first, 0);
      record(source.table, expected);

      Run replicated =
          cli(
              stores,
              "replicate",
              "--source-catalog",
              sourceCatalog,
              "--source-table",
              "sales.orders",
              "--target",
              REPLICA,
              "--target-catalog",
              targetCatalog);
      assertThat(replicated.exit()).as(replicated.err()).isZero();
      assertThat(targetWriters.loadTable(ID).properties())
          .containsEntry(ReplicaProperties.READ_ONLY, "true");

      // two commits replication never saw, then the source region is lost
      source.append("a", 1);
      source.append("d", 2);
      source.table.refresh();
      record(source.table, expected);
      long orphanHead = source.table.currentSnapshot().snapshotId();
      long orphanParent = source.table.currentSnapshot().parentId();
      sourceS3.close();
      sourceLost = true;

      // now mode promotes what the replica holds: the source's files cannot be read
      Run promoted =
          cli(
              stores,
              "promote",
              "--mode",
              "now",
              "--target",
              REPLICA,
              "--target-catalog",
              targetCatalog,
              "--target-table",
              "sales.orders");
      assertThat(promoted.exit()).as(promoted.err()).isZero();
      assertThat(promoted.out())
          .contains("epoch              1", "catalog entry      dr:sales.orders");

      // writers move to the promoted table, through the target's catalog
      Table primary = targetWriters.loadTable(ID);
      assertThat(primary.properties()).doesNotContainKey(ReplicaProperties.READ_ONLY);
      SourceTable writers = SourceTable.of(primary, 1_000);
      DataFile written = writers.append("c", 3);
      writers.deletePositions(written, 1);
      primary.refresh();
      for (Snapshot snapshot : primary.snapshots()) {
        List<String> rows = SourceTable.rows(primary, snapshot.snapshotId());
        assertThat(expected.putIfAbsent(snapshot.snapshotId(), rows))
            .as("replicated snapshot %s", snapshot.snapshotId())
            .isIn(null, rows);
      }
      assertThat(primary.snapshots()).extracting(Snapshot::snapshotId).doesNotContain(orphanHead);
      assertThat(TablePaths.outside(primary, replicaIo, REPLICA)).isEmpty();

      // the source region is back, holding the two orphan commits
      try (EmbeddedS3 back = EmbeddedS3.start(sourceFolder, sourcePort);
          S3FileIO originalIo = EmbeddedS3FileIO.create(back)) {
        Run failback =
            cli(
                backStores,
                "failback",
                "--primary",
                REPLICA,
                "--primary-catalog",
                targetCatalog,
                "--primary-table",
                "sales.orders",
                "--old-source",
                original,
                "--old-source-catalog",
                sourceCatalog);

        assertThat(failback.exit()).as(failback.err()).isZero();
        assertThat(failback.out())
            .contains(
                "orphan snapshots   [" + orphanParent + ", " + orphanHead + "]",
                "catalog entry      src:sales.orders");
        Map<String, Long> tags = tags(failback.out());
        assertThat(tags).hasSize(1).containsValue(orphanHead);
        String tag = tags.keySet().iterator().next();

        Table originalTable = sourceWriters.loadTable(ID);
        assertThat(originalTable.properties()).containsEntry(ReplicaProperties.READ_ONLY, "true");
        assertHoldsThePromotedHistory(originalTable, primary, expected);
        assertThat(originalTable.refs().get(tag).isTag()).isTrue();
        assertThat(originalTable.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
        for (long orphan : List.of(orphanParent, orphanHead)) {
          assertThat(SourceTable.rows(originalTable, orphan))
              .as("orphan %s", orphan)
              .isEqualTo(expected.get(orphan));
        }
        assertThat(TablePaths.outside(originalTable, originalIo, original)).isEmpty();
        assertVerifies(backStores, targetCatalog, original);

        // writers stay on the promoted table: a rerun carries their commit and the entry along
        writers.append("e", 2);
        primary.refresh();
        record(primary, expected);
        Run again =
            cli(
                backStores,
                "failback",
                "--primary",
                REPLICA,
                "--primary-catalog",
                targetCatalog,
                "--primary-table",
                "sales.orders",
                "--old-source",
                original,
                "--old-source-catalog",
                sourceCatalog);
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(tags(again.out())).isEqualTo(tags);
        originalTable = sourceWriters.loadTable(ID);
        assertHoldsThePromotedHistory(originalTable, primary, expected);
        assertThat(originalTable.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
        assertThat(SourceTable.rows(originalTable, orphanHead)).isEqualTo(expected.get(orphanHead));
        assertVerifies(backStores, targetCatalog, original);

        // the switch-back: writers stop on the promoted table, the original is promoted through
        // its catalog and written on there; replicating it into the promoted table ends that
        // promotion, which writers through the target's catalog made the entry's own files
        Run switched =
            cli(
                backStores,
                "promote",
                "--mode",
                "now",
                "--target",
                original,
                "--target-catalog",
                sourceCatalog,
                "--target-table",
                "sales.orders");
        assertThat(switched.exit()).as(switched.err()).isZero();
        assertThat(switched.out()).contains("epoch              2");
        Table again2 = sourceWriters.loadTable(ID);
        assertThat(again2.properties()).doesNotContainKey(ReplicaProperties.READ_ONLY);
        SourceTable backWriters = SourceTable.of(again2, 2_000);
        DataFile late = backWriters.append("f", 2);
        backWriters.deletePositions(late, 0);
        again2.refresh();
        record(again2, expected);

        Run resumed =
            cli(
                stores,
                "replicate",
                "--source-catalog",
                sourceCatalog,
                "--source-table",
                "sales.orders",
                "--target",
                REPLICA,
                "--target-catalog",
                targetCatalog);
        assertThat(resumed.exit()).as(resumed.out() + resumed.err()).isZero();
        Table replicaAgain = targetWriters.loadTable(ID);
        assertThat(replicaAgain.properties()).containsEntry(ReplicaProperties.READ_ONLY, "true");
        assertHoldsThePromotedHistory(replicaAgain, again2, expected);
        assertThat(replicaAgain.refs().get(tag).snapshotId()).isEqualTo(orphanHead);
        assertThat(TablePaths.outside(replicaAgain, replicaIo, REPLICA)).isEmpty();
      }
    } finally {
      if (!sourceLost) {
        sourceS3.close();
      }
    }
  }

  /**
   * Every snapshot of the promoted table reads the rows recorded when it was written, on both
   * tables, with the same sequence number; every logged time and every ref reads alike.
   */
  private static void assertHoldsThePromotedHistory(
      Table original, Table primary, Map<Long, List<String>> expected) {
    assertThat(original.currentSnapshot().snapshotId())
        .isEqualTo(primary.currentSnapshot().snapshotId());
    for (Snapshot snapshot : primary.snapshots()) {
      long id = snapshot.snapshotId();
      assertThat(SourceTable.rows(primary, id)).as("promoted %s", id).isEqualTo(expected.get(id));
      assertThat(SourceTable.rows(original, id)).as("original %s", id).isEqualTo(expected.get(id));
      assertThat(original.snapshot(id).sequenceNumber()).isEqualTo(snapshot.sequenceNumber());
    }
    for (HistoryEntry entry : primary.history()) {
      assertThat(SourceTable.rowsAsOf(original, entry.timestampMillis()))
          .as("as of %s", entry.timestampMillis())
          .isEqualTo(SourceTable.rowsAsOf(primary, entry.timestampMillis()));
    }
    primary
        .refs()
        .forEach(
            (name, ref) ->
                assertThat(original.refs().get(name).snapshotId())
                    .as("ref %s", name)
                    .isEqualTo(ref.snapshotId()));
  }

  /** {@code verify}, the promoted table (through its catalog) against the original. */
  private static void assertVerifies(String[] backStores, String targetCatalog, String original) {
    Run verify =
        cli(
            backStores,
            "verify",
            "--source-catalog",
            targetCatalog,
            "--source-table",
            "sales.orders",
            "--target",
            original);
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
    assertThat(verify.out()).endsWith(" checked, 0 problems\n");
  }

  private static void record(Table table, Map<Long, List<String>> expected) {
    for (Snapshot snapshot : table.snapshots()) {
      expected.putIfAbsent(snapshot.snapshotId(), SourceTable.rows(table, snapshot.snapshotId()));
    }
  }

  /** A writers' client of a JDBC catalog whose warehouse is on {@code s3}. */
  private static JdbcCatalog catalog(
      String name, String database, String warehouse, EmbeddedS3 s3) {
    Map<String, String> properties = new HashMap<>(EmbeddedS3FileIO.properties(s3));
    properties.put(CatalogProperties.URI, database);
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    properties.put(CatalogProperties.FILE_IO_IMPL, S3FileIO.class.getName());
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(name, properties);
    return catalog;
  }

  private static Run cli(String[] stores, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(stores));
    return S3CommandFixture.run(all.toArray(String[]::new));
  }

  private static Map<String, Long> tags(String out) {
    Map<String, Long> tags = new LinkedHashMap<>();
    Matcher m = TAG.matcher(out);
    while (m.find()) {
      tags.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return tags;
  }
}
