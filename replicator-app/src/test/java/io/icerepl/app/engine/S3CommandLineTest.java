package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.io.PrintWriter;
import java.io.StringWriter;
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
import org.junit.jupiter.api.Test;

/** {@code replicate} and {@code expire} on s3:// locations, against the embedded S3. */
class S3CommandLineTest {
  @Test
  void replicateAndExpireWorkOnS3Locations() throws Exception {
    // the default credentials chain reads these system properties
    System.setProperty("aws.accessKeyId", EmbeddedS3.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", EmbeddedS3.SECRET_KEY);
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse =
            new S3Warehouse(
                "s3://source/warehouse",
                s3.endpoint(),
                "us-east-1",
                EmbeddedS3.ACCESS_KEY,
                EmbeddedS3.SECRET_KEY);
        S3FileIO io = new S3FileIO()) {
      s3.createBucket("source");
      s3.createBucket("replica");
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

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code =
          ReplicatorCli.execute(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
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
      assertThat(code).as(err.toString()).isZero();
      assertThat(out.toString()).contains("snapshots added    3");

      io.initialize(
          Map.of(
              "s3.endpoint",
              s3.endpoint().toString(),
              "s3.path-style-access",
              "true",
              "client.region",
              "us-east-1",
              "s3.access-key-id",
              EmbeddedS3.ACCESS_KEY,
              "s3.secret-access-key",
              EmbeddedS3.SECRET_KEY));
      Table replica =
          new BaseTable(
              new StaticTableOperations(
                  "s3://replica/warehouse/ns/t/metadata/v1.metadata.json", io),
              "r");
      for (Snapshot snapshot : table.snapshots()) {
        assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
      }

      StringWriter expired = new StringWriter();
      code =
          ReplicatorCli.execute(
              new PrintWriter(expired, true),
              new PrintWriter(err, true),
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
      assertThat(code).as(err.toString()).isZero();
      assertThat(expired.toString())
          .contains("expired_snapshots_count 2", "deleted_manifest_lists_count 2", "dry_run false");
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }
}
