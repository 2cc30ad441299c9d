package io.icerepl.app.engine.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.S3CommandFixture;
import io.icerepl.app.engine.S3CommandFixture.Run;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replicate} and {@code backfill} with S3 Batch Operations: their settings reach S3 Control.
 */
class BatchOperationsCommandTest {
  @BeforeEach
  void credentials() {
    S3CommandFixture.setCredentials();
  }

  @AfterEach
  void clearCredentials() {
    S3CommandFixture.clearCredentials();
  }

  @Test
  void replicateHandsTheBackfillToAJobAndPrintsItsProgress() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse");
        RecordedS3Control control = new RecordedS3Control(s3.client())) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table table = S3CommandFixture.threeAppends(warehouse);

      Run run =
          S3CommandFixture.replicateToReplicaBucket(
              s3,
              table,
              "--batch-operations-role",
              RecordedS3Control.ROLE,
              "--batch-operations-min-files",
              "3",
              "--batch-operations-poll-interval",
              "10ms",
              "--batch-operations-endpoint",
              control.endpoint().toString());

      assertThat(run.exit()).as(run.err()).isZero();
      assertThat(control.jobsCreated()).isEqualTo(1);
      assertThat(run.err()).containsPattern("batch job +\\S+ Complete: 3 of 3 tasks succeeded");
      // the job copied every data file: the command's own pass copied none
      assertThat(run.out()).contains("files copied       0");
      RecordedS3Control.Request create = control.createJobRequests().get(0);
      assertThat(create.headers()).containsEntry("x-amz-account-id", RecordedS3Control.ACCOUNT);
      assertThat(RecordedS3Control.text(RecordedS3Control.parse(create.body()), "TargetKeyPrefix"))
          .isNull();
      try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
        Table replica =
            S3CommandFixture.load(io, "s3://replica/warehouse/ns/t/metadata/v1.metadata.json");
        for (Snapshot snapshot : table.snapshots()) {
          assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
              .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
        }
      }
    }
  }

  @Test
  void backfillTakesTheSettingsOfItsConfigurationAndPrintsTheJobsProgress(@TempDir Path dir)
      throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse");
        RecordedS3Control control = new RecordedS3Control(s3.client())) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table table = S3CommandFixture.threeAppends(warehouse);
      String side =
          "{endpoint: '"
              + s3.endpoint()
              + "', path-style: true, access-key-id: "
              + EmbeddedS3.ACCESS_KEY
              + ", secret-access-key: "
              + EmbeddedS3.SECRET_KEY
              + "}";
      Path config = dir.resolve("replicator.yml");
      Files.writeString(
          config,
          String.join(
              "\n",
              "replicator:",
              "  settle-time: 0s",
              "  s3:",
              "    source: " + side,
              "    target: " + side,
              "  batch-operations:",
              "    enabled: true",
              "    role-arn: " + RecordedS3Control.ROLE,
              "    min-files: 3",
              "    poll-interval: 10ms",
              "  rules:",
              "    - name: one",
              "      source: s3://source/warehouse",
              "      targets: [{name: dr, prefix: 's3://replica/warehouse'}]",
              ""));

      Run run =
          S3CommandFixture.run(
              "backfill",
              "--config",
              config.toString(),
              "--batch-operations-endpoint",
              control.endpoint().toString());

      assertThat(run.exit()).as(run.out() + run.err()).isZero();
      assertThat(control.jobsCreated()).isEqualTo(1);
      assertThat(run.err())
          .containsPattern("batch job ns/t -> dr: \\S+ Complete, 3 of 3 tasks succeeded, 0 failed");
      assertThat(run.out()).contains("1 replicated");
      try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
        Table replica =
            S3CommandFixture.load(io, "s3://replica/warehouse/ns/t/metadata/v1.metadata.json");
        for (Snapshot snapshot : table.snapshots()) {
          assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
              .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
        }
      }
    }
  }
}
