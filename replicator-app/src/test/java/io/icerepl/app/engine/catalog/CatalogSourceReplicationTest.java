package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.catalog.SourceCatalog.Kind;
import io.icerepl.app.engine.catalog.SourceCatalog.Run;
import io.icerepl.app.scenario.ReplicaVerifier;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.localstack.LoopbackPort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Catalog-managed source tables, written through a real REST or JDBC catalog with the Iceberg
 * library and replicated with {@code replicate --source-catalog}: the head is the catalog's
 * metadata location, never the newest file of the table's metadata folder.
 */
class CatalogSourceReplicationTest {
  private static final TableIdentifier ORDERS = TableIdentifier.of("db", "orders");

  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyCommitIsReplicatedAndReadsAsTheSourceAtEverySnapshotTimestampAndRef(Kind kind)
      throws Exception {
    try (SourceCatalog catalog = SourceCatalog.open(kind, dir)) {
      ScenarioTable source = create(catalog);
      String target = dir.resolve("replica").toString();

      DataFile first = source.append(source.row(1, "a", "x"), source.row(2, "b", "y")).get(0);
      replicateAndVerify(catalog, source, target);

      source.append(source.row(3, "c", "x"));
      replicateAndVerify(catalog, source, target);

      source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, first, 0));
      replicateAndVerify(catalog, source, target);

      source.table().updateSchema().addColumn("extra", Types.LongType.get()).commit();
      source.append(source.row(4, "d", "z", 40L));
      replicateAndVerify(catalog, source, target);

      long tagged = source.table().currentSnapshot().snapshotId();
      source.table().manageSnapshots().createTag("v1", tagged).commit();
      source.table().manageSnapshots().createBranch("audit", tagged).commit();
      source.appendToBranch("audit", source.row(5, "e", "y", 50L));
      source.append(source.row(6, "f", "x", 60L));
      replicateAndVerify(catalog, source, target);

      assertThat(verifier.load(target).refs()).containsOnlyKeys("main", "v1", "audit");
      Run again = catalog.replicate("db.orders", target);
      assertThat(again.exit()).as(again.err()).isZero();
      assertThat(again.out()).contains("versions applied   0");

      // verify compares the replica with the table its catalog names
      Run verified =
          Run.of(
              "verify",
              "--source-catalog",
              catalog.properties(),
              "--source-table",
              "db.orders",
              "--target",
              target);
      assertThat(verified.exit()).as(verified.out() + verified.err()).isZero();
      assertThat(verified.out()).containsPattern("[1-9][0-9]* checked, 0 problems");
      source.table().manageSnapshots().createTag("after", tagged).commit();
      Run behind =
          Run.of(
              "verify",
              "--source-catalog",
              catalog.properties(),
              "--source-table",
              "db.orders",
              "--target",
              target);
      assertThat(behind.exit()).as(behind.out() + behind.err()).isEqualTo(1);
      assertThat(behind.out()).contains("ref after");
    }
  }

  /**
   * Two writers append to one table; the second loses the catalog's commit race. A losing writer
   * may leave a metadata file newer than the table's real state in the metadata folder (here one is
   * written with a version above the catalog's). The catalog never names it, so the replica never
   * holds its snapshot, while a run by location takes the folder's newest file for the head.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWriterThatLostTheCommitRaceIsNeverReplicated(Kind kind) throws Exception {
    try (SourceCatalog catalog = SourceCatalog.open(kind, dir)) {
      ScenarioTable source = create(catalog);
      source.append(source.row(1, "a", "x"));
      String target = dir.resolve("replica").toString();
      replicateAndVerify(catalog, source, target, "--settle-time", "0s");

      // both writers start from the same version; the loser's snapshot is made before the winner
      // commits, and its commit swaps the catalog's pointer from that version
      Table loser = catalog.catalog().loadTable(ORDERS);
      DataFile lost = source.writeDataFile(List.of(source.row(3, "c", "z")));
      Snapshot uncommitted = loser.newAppend().appendFile(lost).apply();
      TableOperations loserOperations = ((HasTableOperations) loser).operations();
      TableMetadata stale = loserOperations.current();
      Table winner = catalog.catalog().loadTable(ORDERS);
      winner
          .newAppend()
          .appendFile(source.writeDataFile(List.of(source.row(2, "b", "y"))))
          .commit();
      TableMetadata losing =
          TableMetadata.buildFrom(stale).setBranchSnapshot(uncommitted, "main").build();
      assertThatThrownBy(() -> loserOperations.commit(stale, losing))
          .isInstanceOf(CommitFailedException.class);
      // what a losing writer may leave: a file newer than the catalog's, here built on the
      // winner's version so that it is the single newest file of the folder
      Table current = catalog.catalog().loadTable(ORDERS);
      Snapshot orphan = current.newAppend().appendFile(lost).apply();
      String losingFile = writeLosingMetadata(current, orphan);

      Run run = catalog.replicate("db.orders", target, "--settle-time", "0s");
      assertThat(run.exit()).as(run.err()).isZero();
      Table replica = verifier.load(target);
      assertThat(replica.snapshot(uncommitted.snapshotId()))
          .as("the losing writer's snapshot on the replica")
          .isNull();
      assertThat(replica.snapshot(orphan.snapshotId()))
          .as("the snapshot of %s on the replica", losingFile)
          .isNull();
      assertThat(replica.currentSnapshot().snapshotId())
          .isEqualTo(winner.currentSnapshot().snapshotId());
      source.record();
      verifier.verify(source.expectations(), source.location(), target);

      // the same folder, replicated by location, takes the losing file for the head
      String byLocation = dir.resolve("replica-by-location").toString();
      Run folder =
          Run.of(
              "replicate",
              "--source",
              source.location(),
              "--target",
              byLocation,
              "--settle-time",
              "0s");
      assertThat(folder.exit()).as(folder.err()).isZero();
      assertThat(verifier.load(byLocation).snapshot(orphan.snapshotId()))
          .as("the losing writer's snapshot, replicated from %s by location", losingFile)
          .isNotNull();
    }
  }

  /**
   * A source catalog nobody answers at (a REST URI no server listens on, a JDBC database in a
   * folder that does not exist), or one without the table: the run fails with exit code 1 and a
   * message naming the catalog, no stack trace, and the replica is left as it was.
   */
  @ParameterizedTest
  @ValueSource(strings = {"rest-down", "jdbc-missing-folder", "no-such-table"})
  void aSourceCatalogThatCannotServeTheTableFailsTheRunAndLeavesTheReplica(String failure)
      throws Exception {
    try (SourceCatalog catalog = SourceCatalog.open(Kind.JDBC, dir)) {
      ScenarioTable source = create(catalog);
      source.append(source.row(1, "a", "x"));
      String target = dir.resolve("replica").toString();
      replicateAndVerify(catalog, source, target);
      List<String> before = listing(target);

      String properties;
      String table = "db.orders";
      String names;
      switch (failure) {
        case "rest-down" -> {
          String uri = "http://127.0.0.1:" + LoopbackPort.free();
          properties = "name=down,type=rest,uri=" + uri;
          names =
              "catalog down (rest "
                  + uri
                  + "): Error occurred while processing GET request: Connect to "
                  + uri
                  + " failed: Connection refused";
        }
        case "jdbc-missing-folder" -> {
          String uri = "jdbc:sqlite:" + dir.resolve("missing/catalog.db");
          properties = "name=gone,type=jdbc,uri=" + uri + ",warehouse=" + dir.toUri();
          names = "catalog gone (jdbc " + uri + ")";
        }
        default -> {
          properties = catalog.properties();
          table = "db.missing";
          names = "catalog src (jdbc ";
        }
      }
      Run run =
          Run.of(
              "replicate",
              "--source-catalog",
              properties,
              "--source-table",
              table,
              "--target",
              target);

      assertThat(run.exit()).as(run.out() + run.err()).isEqualTo(1);
      assertThat(run.err()).startsWith("error: Cannot ").contains(names).doesNotContain("\tat ");
      assertThat(listing(target)).isEqualTo(before);
      verifier.verify(source.expectations(), source.location(), target);
    }
  }

  private static ScenarioTable create(SourceCatalog catalog) {
    catalog.createNamespace("db");
    Table table =
        catalog
            .catalog()
            .createTable(
                ORDERS,
                Scenario.SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    return ScenarioTable.of("orders", table.location(), table);
  }

  private void replicateAndVerify(
      SourceCatalog catalog, ScenarioTable source, String target, String... more) {
    Run run = catalog.replicate("db.orders", target, more);
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("source             " + catalog.name() + ":db.orders");
    source.record();
    verifier.verify(source.expectations(), source.location(), target);
  }

  /**
   * Writes what a writer that lost its commit leaves: the table's current metadata with another
   * snapshot on main, as {@code <version + 1>-<uuid>.metadata.json} in the table's metadata folder,
   * a file the catalog never pointed at.
   */
  private static String writeLosingMetadata(Table table, Snapshot snapshot) {
    TableMetadata current = ((HasTableOperations) table).operations().current();
    String file = current.metadataFileLocation();
    String name = file.substring(file.lastIndexOf('/') + 1);
    int version = Integer.parseInt(name.substring(0, name.indexOf('-')));
    String losing =
        file.substring(0, file.lastIndexOf('/') + 1)
            + String.format("%05d-%s.metadata.json", version + 1, UUID.randomUUID());
    TableMetadata metadata =
        TableMetadata.buildFrom(current).setBranchSnapshot(snapshot, "main").build();
    TableMetadataParser.write(metadata, table.io().newOutputFile(losing));
    return losing;
  }

  /** Every file under the replica location, with its size and modification time. */
  private static List<String> listing(String location) throws IOException {
    try (Stream<Path> files = Files.walk(Path.of(location))) {
      return files
          .filter(Files::isRegularFile)
          .map(
              f -> {
                try {
                  return f + " " + Files.size(f) + " " + Files.getLastModifiedTime(f);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .sorted()
          .toList();
    }
  }
}
