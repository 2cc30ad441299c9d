package io.icerepl.app.engine.promote;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.merge.ReplicaProperties;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code promote --mode now} with the source's S3 stopped: the replica on another S3 is promoted,
 * reads every snapshot as the source did, and {@code replicate} into it then exits 1.
 */
class S3PromoteCommandTest {
  private static final String REPLICA = "s3://replica/warehouse/ns/t";

  @BeforeEach
  void credentials() {
    // the default credentials chain reads these system properties
    System.setProperty("aws.accessKeyId", EmbeddedS3.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", EmbeddedS3.SECRET_KEY);
  }

  @AfterEach
  void clearCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  @TempDir Path sourceFolder;

  @Test
  void promoteNowWithTheSourceUnreachablePromotesWhatTheReplicaHolds() throws Exception {
    try (EmbeddedS3 replicaS3 = EmbeddedS3.start();
        S3FileIO io = new S3FileIO()) {
      replicaS3.createBucket("replica");
      String sourceLocation;
      String sourceEndpoint;
      Map<Long, List<String>> sourceRows = new LinkedHashMap<>();
      int sourcePort;
      try (EmbeddedS3 sourceS3 = EmbeddedS3.start(sourceFolder, 0);
          S3Warehouse warehouse =
              new S3Warehouse(
                  "s3://source/warehouse",
                  sourceS3.endpoint(),
                  "us-east-1",
                  EmbeddedS3.ACCESS_KEY,
                  EmbeddedS3.SECRET_KEY)) {
        sourceS3.createBucket("source");
        sourceEndpoint = sourceS3.endpoint().toString();
        sourcePort = sourceS3.endpoint().getPort();
        Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
        Table table =
            warehouse.create(
                "ns", "t", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
        GenericRecord record = GenericRecord.create(schema);
        for (long i = 0; i < 3; i++) {
          table
              .newAppend()
              .appendFile(
                  TableWrites.writeData(table, null, List.<Record>of(record.copy(Map.of("id", i)))))
              .commit();
        }
        sourceLocation = table.location();
        for (Snapshot snapshot : table.snapshots()) {
          sourceRows.put(snapshot.snapshotId(), SourceTable.rows(table, snapshot.snapshotId()));
        }
        Run replicated = run(sourceEndpoint, replicaS3, "replicate", "--source", sourceLocation);
        assertThat(replicated.code).as(replicated.err).isZero();
      }

      Run promoted =
          run(sourceEndpoint, replicaS3, "promote", "--mode", "now", "--source", sourceLocation);
      assertThat(promoted.code).as(promoted.err).isZero();
      assertThat(promoted.out)
          .contains(
              "source unreachable ",
              "table              " + REPLICA,
              "epoch              1",
              "mode               now",
              "replica version    2 " + REPLICA + "/metadata/v2.metadata.json",
              "replica snapshots  3, head ")
          .containsPattern("last source file   \\S+\\.metadata\\.json")
          .containsPattern("last source commit \\d{4}-\\d\\d-\\d\\dT");

      io.initialize(
          Map.of(
              "s3.endpoint",
              replicaS3.endpoint().toString(),
              "s3.path-style-access",
              "true",
              "client.region",
              "us-east-1",
              "s3.access-key-id",
              EmbeddedS3.ACCESS_KEY,
              "s3.secret-access-key",
              EmbeddedS3.SECRET_KEY));
      Table replica =
          new BaseTable(new StaticTableOperations(REPLICA + "/metadata/v2.metadata.json", io), "r");
      assertThat(replica.properties())
          .doesNotContainKey(ReplicaProperties.READ_ONLY)
          .containsEntry(ReplicaProperties.EPOCH, "1");
      for (Map.Entry<Long, List<String>> snapshot : sourceRows.entrySet()) {
        assertThat(SourceTable.rows(replica, snapshot.getKey())).isEqualTo(snapshot.getValue());
      }

      Run again = run(sourceEndpoint, replicaS3, "promote", "--mode", "now");
      assertThat(again.code).as(again.err).isZero();
      assertThat(again.out).contains("already promoted at ", ", epoch 1");

      // the source region is back: the promoted replica is still not replicated into
      try (EmbeddedS3 back = EmbeddedS3.start(sourceFolder, sourcePort)) {
        Run replicate = run(sourceEndpoint, replicaS3, "replicate", "--source", sourceLocation);
        assertThat(replicate.code).isEqualTo(1);
        assertThat(replicate.err).contains("the replica was promoted at", "epoch 1");
        assertThat(listMetadata(replicaS3))
            .containsExactlyInAnyOrder("v1.metadata.json", "v2.metadata.json", "version-hint.text");
      }
    }
  }

  @Test
  void safeModeNeedsASource() {
    Run run = run("http://127.0.0.1:1", null, "promote", "--target", "s3://replica/t");
    assertThat(run.code).isEqualTo(2);
    assertThat(run.err).contains("Cannot promote s3://replica/t: --mode safe replicates");
  }

  private static List<String> listMetadata(EmbeddedS3 s3) {
    return s3
        .client()
        .listObjectsV2(b -> b.bucket("replica").prefix("warehouse/ns/t/metadata/"))
        .contents()
        .stream()
        .map(o -> o.key().substring(o.key().lastIndexOf('/') + 1))
        .filter(name -> name.endsWith(".metadata.json") || name.equals("version-hint.text"))
        .toList();
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String sourceEndpoint, EmbeddedS3 replicaS3, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new java.util.ArrayList<>(List.of(args));
    if (replicaS3 != null) {
      all.addAll(
          List.of(
              "--target",
              REPLICA,
              "--source-endpoint",
              sourceEndpoint,
              "--target-endpoint",
              replicaS3.endpoint().toString(),
              "--path-style",
              "--settle-time",
              "0s"));
    }
    int code =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }
}
