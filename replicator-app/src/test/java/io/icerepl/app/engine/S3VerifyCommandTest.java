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
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code verify} on s3:// locations, against the embedded S3: a byte-for-byte copy overwritten with
 * other bytes of the same length keeps its recorded length, and only the ETag comparison with the
 * source catches it.
 */
class S3VerifyCommandTest {
  private static final String REPLICA = "s3://replica/warehouse/ns/t";

  @Test
  void verifyComparesTheEtagOfEachByteForByteCopyWithItsSource() {
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
        S3Client client = s3.client()) {
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
      String endpoint = s3.endpoint().toString();
      Run replicated =
          run(
              "replicate",
              "--source",
              table.location(),
              "--target",
              REPLICA,
              "--endpoint",
              endpoint,
              "--path-style",
              "--settle-time",
              "0s");
      assertThat(replicated.exit).as(replicated.out).isZero();

      Run clean =
          run(
              "verify",
              "--source",
              table.location(),
              "--settle-time",
              "0s",
              "--target",
              REPLICA,
              "--endpoint",
              endpoint,
              "--path-style",
              "--threads",
              "2");
      assertThat(clean.exit).as(clean.out).isZero();
      assertThat(clean.out).endsWith(" checked, 0 problems\n");

      S3Object data =
          client
              .listObjectsV2(b -> b.bucket("replica").prefix("warehouse/ns/t/data/"))
              .contents()
              .stream()
              .filter(o -> o.key().endsWith(".parquet"))
              .findFirst()
              .orElseThrow();
      byte[] bytes =
          client.getObjectAsBytes(b -> b.bucket("replica").key(data.key())).asByteArray();
      bytes[bytes.length / 2] ^= (byte) 0xFF;
      client.putObject(b -> b.bucket("replica").key(data.key()), RequestBody.fromBytes(bytes));

      Run alone = run("verify", "--target", REPLICA, "--endpoint", endpoint, "--path-style");
      assertThat(alone.exit).as("same length, nothing to compare with: " + alone.out).isZero();

      Run compared =
          run(
              "verify",
              "--source",
              table.location(),
              "--settle-time",
              "0s",
              "--target",
              REPLICA,
              "--endpoint",
              endpoint,
              "--path-style");
      assertThat(compared.exit).as(compared.out).isEqualTo(1);
      List<String> lines = compared.out.lines().toList();
      assertThat(lines).hasSize(2);
      assertThat(lines.get(0))
          .startsWith("data file s3://replica/" + data.key() + " (manifest s3://replica/")
          .contains("): its MD5 is ", ", the source file s3://source/warehouse/ns/t/data/");
      assertThat(lines.get(1)).endsWith(" checked, 1 problems");
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out + err.toString());
  }

  private record Run(int exit, String out) {}
}
