package io.icerepl.app.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.fixtures.IdAppends;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** {@code backfill} of two rules' warehouses on the embedded S3, by the service's configuration. */
class BackfillCommandTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path dir;

  @Test
  void backfillsEveryTableNamesTheBadOneExitsOneAndARerunCopiesNothing() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse wh1 = warehouse(s3, "s3://source/wh1");
        S3Warehouse wh2 = warehouse(s3, "s3://source/wh2");
        S3FileIO io = new S3FileIO()) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table a = table(wh1, "ns", "a", 3);
      Table b = table(wh1, "ns", "b", 2);
      Table c = table(wh2, "ns", "c", 2);
      s3.client()
          .putObject(
              r -> r.bucket("source").key("wh2/ns/bad/metadata/v1.metadata.json"),
              RequestBody.fromString("{ not json"));
      Path config = dir.resolve("replicator.yml");
      Files.writeString(config, config(s3));

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code = backfill(out, err, config);

      assertThat(code).as(out + "\n" + err).isEqualTo(1);
      // progress on stderr, the result on stdout
      assertThat(err.toString()).contains("tables to backfill 4");
      assertThat(out.toString())
          .doesNotContain("tables to backfill")
          .containsPattern("two:ns/bad -> dr +.*failed: Cannot .*s3://source/wh2/ns/bad/metadata/")
          .containsPattern("one:ns/a -> dr +1 +3 .* replicated")
          .contains("3 replicated, 0 already up to date, 1 failed");
      io.initialize(EmbeddedS3FileIO.properties(s3));
      assertReadsAsSource(s3, io, a, "s3://replica/wh1/ns/a");
      assertReadsAsSource(s3, io, b, "s3://replica/wh1/ns/b");
      assertReadsAsSource(s3, io, c, "s3://replica/wh2/ns/c");

      StringWriter rerun = new StringWriter();
      StringWriter rerunProgress = new StringWriter();
      code = backfill(rerun, rerunProgress, config, "--json");

      assertThat(code).isEqualTo(1);
      assertThat(rerunProgress.toString()).contains("[4/4 tables, 0 files, 0 B]");
      com.fasterxml.jackson.databind.JsonNode result =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(rerun.toString());
      assertThat(result.get("replicated").asInt()).isZero();
      assertThat(result.get("upToDate").asInt()).isEqualTo(3);
      assertThat(result.get("failed").asInt()).isEqualTo(1);
      assertThat(result.get("tables")).hasSize(4);
      assertThat(result.get("tables").findValuesAsText("result"))
          .containsExactlyInAnyOrder("up to date", "up to date", "up to date", "failed");

      s3.client().deleteObject(r -> r.bucket("source").key("wh2/ns/bad/metadata/v1.metadata.json"));
      StringWriter clean = new StringWriter();
      assertThat(backfill(clean, err, config)).as(clean.toString()).isZero();
      assertThat(clean.toString()).contains("0 replicated, 3 already up to date, 0 failed");
    }
  }

  @Test
  void aConfigurationThatCannotBeReadIsAUsageError() {
    StringWriter err = new StringWriter();
    int code = backfill(new StringWriter(), err, dir.resolve("missing.yml"));

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains("Cannot read configuration " + dir.resolve("missing.yml") + ": no such file");
  }

  private static int backfill(StringWriter out, StringWriter err, Path config, String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "backfill",
                "--config",
                config.toString(),
                "--tables-in-parallel",
                "2",
                "--threads",
                "4"));
    args.addAll(java.util.List.of(more));
    return ReplicatorCli.execute(
        new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
  }

  private static String config(EmbeddedS3 s3) {
    String side =
        "{endpoint: '"
            + s3.endpoint()
            + "', path-style: true, access-key-id: "
            + EmbeddedS3.ACCESS_KEY
            + ", secret-access-key: "
            + EmbeddedS3.SECRET_KEY
            + "}";
    return String.join(
        "\n",
        "replicator:",
        "  settle-time: 0s",
        "  s3:",
        "    source: " + side,
        "    target: " + side,
        "  rules:",
        "    - name: one",
        "      source: s3://source/wh1",
        "      targets: [{name: dr, prefix: 's3://replica/wh1'}]",
        "    - name: two",
        "      source: s3://source/wh2",
        "      targets: [{name: dr, prefix: 's3://replica/wh2'}]",
        "");
  }

  private static S3Warehouse warehouse(EmbeddedS3 s3, String location) {
    return new S3Warehouse(
        location, s3.endpoint(), "us-east-1", EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY);
  }

  private static Table table(S3Warehouse warehouse, String namespace, String name, int commits) {
    Table table =
        warehouse.create(
            namespace, name, SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    IdAppends.appendEach(table, commits);
    return table;
  }

  /**
   * The replica, opened by its version hint, reads as the source at every snapshot and snapshot
   * time, and names no file of the source.
   */
  private static void assertReadsAsSource(
      EmbeddedS3 s3, S3FileIO io, Table source, String replicaLocation) {
    String metadata = replicaLocation.substring("s3://replica/".length()) + "/metadata/";
    String version =
        s3.client()
            .getObjectAsBytes(r -> r.bucket("replica").key(metadata + "version-hint.text"))
            .asUtf8String()
            .trim();
    Table replica =
        new BaseTable(
            new StaticTableOperations(
                "s3://replica/" + metadata + "v" + version + ".metadata.json", io),
            replicaLocation);
    source.refresh();
    assertThat(replica.snapshots()).hasSameSizeAs(source.snapshots());
    for (Snapshot snapshot : source.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .as("%s at snapshot %s", replicaLocation, snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(source, snapshot.snapshotId()));
      assertThat(rowsAsOf(replica, snapshot.timestampMillis()))
          .isEqualTo(rowsAsOf(source, snapshot.timestampMillis()));
      assertThat(replica.snapshot(snapshot.snapshotId()).manifestListLocation())
          .startsWith(replicaLocation + "/");
      try (CloseableIterable<FileScanTask> tasks =
          replica.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        tasks.forEach(t -> assertThat(t.file().location()).startsWith(replicaLocation + "/"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static List<String> rowsAsOf(Table table, long timestampMillis) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).asOfTime(timestampMillis).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }
}
