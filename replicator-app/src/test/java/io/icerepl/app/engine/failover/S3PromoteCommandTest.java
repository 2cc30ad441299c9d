package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.app.engine.S3CommandFixture.Run;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.merge.ReplicaProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
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
    S3CommandFixture.setCredentials();
  }

  @AfterEach
  void clearCredentials() {
    S3CommandFixture.clearCredentials();
  }

  @TempDir Path sourceFolder;

  @Test
  void promoteNowWithTheSourceUnreachablePromotesWhatTheReplicaHolds() throws Exception {
    try (EmbeddedS3 replicaS3 = EmbeddedS3.start()) {
      replicaS3.createBucket("replica");
      String sourceLocation;
      String sourceEndpoint;
      Map<Long, List<String>> sourceRows = new LinkedHashMap<>();
      int sourcePort;
      try (EmbeddedS3 sourceS3 = EmbeddedS3.start(sourceFolder, 0);
          S3Warehouse warehouse = S3CommandFixture.warehouse(sourceS3, "s3://source/warehouse")) {
        sourceS3.createBucket("source");
        sourceEndpoint = sourceS3.endpoint().toString();
        sourcePort = sourceS3.endpoint().getPort();
        Table table = S3CommandFixture.threeAppends(warehouse);
        sourceLocation = table.location();
        for (Snapshot snapshot : table.snapshots()) {
          sourceRows.put(snapshot.snapshotId(), SourceTable.rows(table, snapshot.snapshotId()));
        }
        Run replicated = run(sourceEndpoint, replicaS3, "replicate", "--source", sourceLocation);
        assertThat(replicated.exit()).as(replicated.err()).isZero();
      }

      Run promoted =
          run(sourceEndpoint, replicaS3, "promote", "--mode", "now", "--source", sourceLocation);
      assertThat(promoted.exit()).as(promoted.err()).isZero();
      assertThat(promoted.out())
          .contains(
              "source unreachable ",
              "table              " + REPLICA,
              "epoch              1",
              "mode               now",
              "replica version    2 " + REPLICA + "/metadata/v2.metadata.json",
              "replica snapshots  3, head ")
          .containsPattern("last source file   \\S+\\.metadata\\.json")
          .containsPattern("last source commit \\d{4}-\\d\\d-\\d\\dT");

      try (S3FileIO io = EmbeddedS3FileIO.create(replicaS3)) {
        Table replica = S3CommandFixture.load(io, REPLICA + "/metadata/v2.metadata.json");
        assertThat(replica.properties())
            .doesNotContainKey(ReplicaProperties.READ_ONLY)
            .containsEntry(ReplicaProperties.EPOCH, "1");
        for (Map.Entry<Long, List<String>> snapshot : sourceRows.entrySet()) {
          assertThat(SourceTable.rows(replica, snapshot.getKey())).isEqualTo(snapshot.getValue());
        }
      }

      Run again = run(sourceEndpoint, replicaS3, "promote", "--mode", "now");
      assertThat(again.exit()).as(again.err()).isZero();
      assertThat(again.out()).contains("already promoted at ", ", epoch 1");

      // the source region is back: the promoted replica is still not replicated into
      try (EmbeddedS3 back = EmbeddedS3.start(sourceFolder, sourcePort)) {
        Run replicate = run(sourceEndpoint, replicaS3, "replicate", "--source", sourceLocation);
        assertThat(replicate.exit()).isEqualTo(1);
        assertThat(replicate.err()).contains("the replica was promoted at", "epoch 1");
        assertThat(listMetadata(replicaS3))
            .containsExactlyInAnyOrder("v1.metadata.json", "v2.metadata.json", "version-hint.text");
      }
    }
  }

  @Test
  void safeModeNeedsASource() {
    Run run = run("http://127.0.0.1:1", null, "promote", "--target", "s3://replica/t");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("Cannot promote s3://replica/t: --mode safe replicates");
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

  private static Run run(String sourceEndpoint, EmbeddedS3 replicaS3, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
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
    return S3CommandFixture.run(all.toArray(String[]::new));
  }
}
