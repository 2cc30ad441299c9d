package io.icerepl.app.engine;

import static io.icerepl.app.engine.S3CommandFixture.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.S3CommandFixture.Run;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code replicate} and {@code expire} on s3:// locations, against the embedded S3. */
class S3CommandLineTest {
  @BeforeEach
  void credentials() {
    S3CommandFixture.setCredentials();
  }

  @AfterEach
  void clearCredentials() {
    S3CommandFixture.clearCredentials();
  }

  @Test
  void replicateAndExpireWorkOnS3Locations() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse")) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table table = S3CommandFixture.threeAppends(warehouse);

      Run replicated =
          run(
              "replicate",
              "--source",
              table.location(),
              "--target",
              "s3://replica/warehouse/ns/t",
              "--endpoint",
              s3.endpoint().toString(),
              "--path-style",
              "--settle-time",
              "0s");
      assertThat(replicated.exit()).as(replicated.err()).isZero();
      assertThat(replicated.out()).contains("snapshots added    3");

      try (S3FileIO io = S3CommandFixture.fileIO(s3)) {
        Table replica =
            S3CommandFixture.load(io, "s3://replica/warehouse/ns/t/metadata/v1.metadata.json");
        for (Snapshot snapshot : table.snapshots()) {
          assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
              .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
        }
      }

      Run expired =
          run(
              "expire",
              "--target",
              "s3://replica/warehouse/ns/t",
              "--retention-period",
              "0ms",
              "--retain-last",
              "1",
              "--endpoint",
              s3.endpoint().toString(),
              "--path-style");
      assertThat(expired.exit()).as(expired.err()).isZero();
      assertThat(expired.out())
          .contains("expired_snapshots_count 2", "deleted_manifest_lists_count 2", "dry_run false");
    }
  }
}
