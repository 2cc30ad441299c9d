package io.icerepl.app.engine;

import static io.icerepl.app.engine.S3CommandFixture.replicateToReplicaBucket;
import static io.icerepl.app.engine.S3CommandFixture.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.S3CommandFixture.Run;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

      Run replicated = replicateToReplicaBucket(s3, table);
      assertThat(replicated.exit()).as(replicated.err()).isZero();
      assertThat(replicated.out()).contains("snapshots added    3");

      try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
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

  /**
   * A server-side copy cannot tell a source object's length; the backfill checks it against the
   * manifest's beside the copies, and no manifest naming the file is written before that check.
   */
  @Test
  void aBackfillRefusesASourceDataFileOfAnotherLengthAndLeavesTheReplicaEmpty() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse")) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table table = S3CommandFixture.threeAppends(warehouse);
      Snapshot second = table.snapshot(table.currentSnapshot().parentId());
      DataFile rewrittenAtSource;
      String manifest;
      try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
        rewrittenAtSource = second.addedDataFiles(io).iterator().next();
        manifest =
            second.dataManifests(io).stream()
                .filter(m -> m.snapshotId() == second.snapshotId())
                .findFirst()
                .orElseThrow()
                .path();
        // another writer put different bytes under the key the manifest records
        try (var out = io.newOutputFile(rewrittenAtSource.location()).createOrOverwrite()) {
          out.write(new byte[] {1, 2, 3, 4, 5, 6, 7});
        }
      }

      Run replicated = replicateToReplicaBucket(s3, table);

      assertThat(replicated.exit()).as(replicated.out()).isNotZero();
      assertThat(replicated.err())
          .contains(
              "data file "
                  + rewrittenAtSource.location()
                  + " is 7 bytes but its manifest "
                  + manifest
                  + " records "
                  + rewrittenAtSource.fileSizeInBytes());
      try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
        List<String> left = new java.util.ArrayList<>();
        io.listPrefix("s3://replica/warehouse/ns/t/").forEach(f -> left.add(f.location()));
        assertThat(left)
            .as("replica objects left by the failed backfill")
            .noneMatch(p -> p.contains("/data/"))
            .noneMatch(p -> p.endsWith(".avro"))
            .noneMatch(p -> p.endsWith(".metadata.json"))
            .noneMatch(p -> p.endsWith("version-hint.text"));
      }
    }
  }

  @Test
  void aTableNamingItsFilesBothS3AndS3aReplicatesWhole() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse")) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table table = S3CommandFixture.threeAppends(warehouse);
      // another engine (Spark through S3A) names the objects it writes s3a://
      GenericRecord record = GenericRecord.create(table.schema());
      DataFile written =
          TableWrites.writeData(
              table,
              null,
              List.<Record>of(record.copy(Map.of("id", 10L)), record.copy(Map.of("id", 11L))));
      DataFile spelledS3a =
          DataFiles.builder(table.spec())
              .copy(written)
              .withPath(written.location().replaceFirst("^s3://", "s3a://"))
              .build();
      table.newAppend().appendFile(spelledS3a).commit();
      table.newRowDelta().addDeletes(deletePosition(table, spelledS3a, 0)).commit();
      assertThat(SourceTable.rows(table, table.currentSnapshot().snapshotId()))
          .hasSize(4)
          .doesNotContain("Record(10)");

      Run replicated = replicateToReplicaBucket(s3, table);
      assertThat(replicated.exit()).as(replicated.out() + replicated.err()).isZero();

      try (S3FileIO io = EmbeddedS3FileIO.create(s3)) {
        String hint;
        try (var in =
            io.newInputFile("s3://replica/warehouse/ns/t/metadata/version-hint.text").newStream()) {
          hint = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        }
        Table replica =
            S3CommandFixture.load(
                io, "s3://replica/warehouse/ns/t/metadata/v" + hint + ".metadata.json");
        assertThat(replica.currentSnapshot().snapshotId())
            .isEqualTo(table.currentSnapshot().snapshotId());
        for (Snapshot snapshot : table.snapshots()) {
          assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
              .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
        }
        try (CloseableIterable<FileScanTask> tasks = replica.newScan().planFiles()) {
          for (FileScanTask task : tasks) {
            assertThat(task.file().location()).startsWith("s3://replica/warehouse/ns/t/");
            task.deletes()
                .forEach(d -> assertThat(d.location()).startsWith("s3://replica/warehouse/ns/t/"));
          }
        }
      }
    }
  }

  /** A position delete file of an unpartitioned table, naming its data file as it is spelled. */
  private static DeleteFile deletePosition(Table table, DataFile file, long position)
      throws IOException {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    String path = table.locationProvider().newDataLocation(UUID.randomUUID() + "-deletes.parquet");
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)),
            table.spec(),
            null);
    try (writer) {
      writer.write(PositionDelete.<Record>create().set(file.location(), position));
    }
    return writer.toDeleteFile();
  }

  /** No credentials anywhere: one line saying so, each of its "Cannot <verb> <path>" once. */
  @Test
  void missingCredentialsAreSaidOnce(@TempDir Path dir) throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse")) {
      s3.createBucket("source");
      Table table = S3CommandFixture.threeAppends(warehouse);
      S3CommandFixture.clearCredentials();
      // the last link of the default chain, the instance role, is not asked on a test machine
      System.setProperty("aws.disableEc2Metadata", "true");
      try {
        Run failed =
            run(
                "replicate",
                "--source",
                table.location(),
                "--target",
                dir.resolve("replica").toString(),
                "--endpoint",
                s3.endpoint().toString(),
                "--path-style",
                "--settle-time",
                "0s");

        assertThat(failed.exit()).isEqualTo(1);
        List<String> lines = failed.err().lines().toList();
        assertThat(lines)
            .as(failed.err())
            .singleElement()
            .asString()
            .contains("no AWS credentials");
        List<String> cannots =
            java.util.Arrays.stream(lines.get(0).split("Cannot "))
                .skip(1)
                .map(c -> c.substring(0, c.indexOf(':')).strip())
                .toList();
        assertThat(cannots).as(lines.get(0)).isNotEmpty().doesNotHaveDuplicates();
      } finally {
        System.clearProperty("aws.disableEc2Metadata");
      }
    }
  }
}
