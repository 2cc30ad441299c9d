package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.fixtures.JarCommand;
import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped service jar, as a process of its own, replicates a JDBC catalog's table on local
 * files into a replica registered in a second JDBC catalog: the catalog clients work with the
 * libraries the jar holds, not only with the tests' class path.
 */
class CatalogServiceJarTest {
  private static final Path JAR = Path.of("target", "replicator-app.jar");
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "data", Types.StringType.get()));

  @TempDir Path dir;

  @Test
  void replicatesCatalogToCatalogAsItsOwnProcess() throws Exception {
    try (SourceCatalog source = SourceCatalog.open(SourceCatalog.Kind.JDBC, dir)) {
      source.createNamespace("db");
      Table table = source.catalog().createTable(TableIdentifier.of("db", "orders"), SCHEMA);
      String replica = dir.resolve("replica/db/orders").toString();
      String targetDatabase = "jdbc:sqlite:" + dir.resolve("dr.db");
      String targetCatalog =
          "name=dr,type=jdbc,uri="
              + targetDatabase
              + ",warehouse="
              + dir.resolve("replica").toUri();

      for (int round = 0; round < 2; round++) {
        append(table, round * 10, 3);
        Path log = dir.resolve("replicate-" + round + ".log");
        Process process =
            new ProcessBuilder(
                    JarCommand.of(
                        JAR,
                        "replicate",
                        "--source-catalog",
                        source.properties(),
                        "--source-table",
                        "db.orders",
                        "--target",
                        replica,
                        "--target-catalog",
                        targetCatalog))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();
        assertThat(process.exitValue()).as(Files.readString(log, StandardCharsets.UTF_8)).isZero();
      }

      table.refresh();
      try (JdbcCatalog target = new JdbcCatalog()) {
        target.initialize(
            "dr",
            Map.of("uri", targetDatabase, "warehouse", dir.resolve("replica").toUri().toString()));
        Table registered = target.loadTable(TableIdentifier.of("db", "orders"));
        assertThat(registered.currentSnapshot().snapshotId())
            .isEqualTo(table.currentSnapshot().snapshotId());
        for (Snapshot snapshot : table.snapshots()) {
          assertThat(rows(registered, snapshot.snapshotId()))
              .as("snapshot %s", snapshot.snapshotId())
              .isEqualTo(rows(table, snapshot.snapshotId()))
              .isNotEmpty();
        }
      }
    }
  }

  /**
   * A PyIceberg user names the catalog by its PyIceberg properties ({@code type=sql}, a SQLAlchemy
   * URL; its rows are keyed by the catalog's name, here PyIceberg's {@code default}), and the jar
   * carries the PostgreSQL driver a shared SQL catalog usually needs.
   */
  @Test
  void readsAPyIcebergSqlCatalogAndCarriesThePostgresDriver() throws Exception {
    String database = dir.resolve("pyiceberg_catalog.db").toAbsolutePath().toString();
    String warehouse = dir.resolve("warehouse").toUri().toString();
    try (JdbcCatalog pyiceberg = new JdbcCatalog()) {
      pyiceberg.initialize(
          "default", Map.of("uri", "jdbc:sqlite:" + database, "warehouse", warehouse));
      pyiceberg.createNamespace(org.apache.iceberg.catalog.Namespace.of("db"));
      Table table = pyiceberg.createTable(TableIdentifier.of("db", "events"), SCHEMA);
      append(table, 0, 4);
      append(table, 10, 2);
      Path replica = dir.resolve("replica/db/events");

      Run sqlite =
          run(
              "replicate",
              "--source-catalog",
              "name=default,type=sql,uri=sqlite:///" + database + ",warehouse=" + warehouse,
              "--source-table",
              "db.events",
              "--target",
              replica.toString());

      assertThat(sqlite.exit()).as(sqlite.output()).isZero();
      Table read = new org.apache.iceberg.hadoop.HadoopTables().load(replica.toString());
      table.refresh();
      assertThat(read.currentSnapshot().snapshotId())
          .isEqualTo(table.currentSnapshot().snapshotId());
      for (Snapshot snapshot : table.snapshots()) {
        assertThat(rows(read, snapshot.snapshotId()))
            .as("snapshot %s", snapshot.snapshotId())
            .isEqualTo(rows(table, snapshot.snapshotId()))
            .isNotEmpty();
      }
    }

    // Nothing listens on port 1: the driver is there if what fails is the connection.
    Run postgres =
        run(
            "replicate",
            "--source-catalog",
            "name=default,type=sql,uri=postgresql+psycopg2://ice:s3cr3t@127.0.0.1:1/iceberg,warehouse="
                + warehouse,
            "--source-table",
            "db.events",
            "--target",
            dir.resolve("pg-replica").toString());

    assertThat(postgres.exit()).as(postgres.output()).isNotZero();
    assertThat(postgres.output())
        .as("the PostgreSQL driver took the URL")
        .doesNotContainIgnoringCase("no suitable driver")
        .containsIgnoringCase("connection")
        .doesNotContain("s3cr3t");
  }

  private record Run(int exit, String output) {}

  private Run run(String... arguments) throws Exception {
    List<String> command = JarCommand.of(JAR, arguments);
    Path log = Files.createTempFile(dir, "run", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
    return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static void append(Table table, long firstId, int count) {
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      GenericRecord record = GenericRecord.create(SCHEMA);
      record.setField("id", firstId + i);
      record.setField("data", "row-" + (firstId + i));
      records.add(record);
    }
    table.newAppend().appendFile(TableWrites.writeData(table, null, records)).commit();
  }

  private static List<String> rows(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }
}
