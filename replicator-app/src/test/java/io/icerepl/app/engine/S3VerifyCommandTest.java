package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.util.List;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
  private static final String REPLICA = S3CommandFixture.REPLICA;

  @BeforeEach
  void credentials() {
    S3CommandFixture.setCredentials();
  }

  @AfterEach
  void clearCredentials() {
    S3CommandFixture.clearCredentials();
  }

  @Test
  void verifyComparesTheEtagOfEachByteForByteCopyWithItsSource() {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse = S3CommandFixture.warehouse(s3, "s3://source/warehouse");
        S3Client client = s3.client()) {
      s3.createBucket("source");
      s3.createBucket("replica");
      Table table = S3CommandFixture.threeAppends(warehouse);
      String endpoint = s3.endpoint().toString();
      S3CommandFixture.Run replicated = S3CommandFixture.replicateToReplicaBucket(s3, table);
      assertThat(replicated.exit()).as(replicated.out() + replicated.err()).isZero();

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
    }
  }

  /** Both streams of a run, in one text, as the assertions read them. */
  private static Run run(String... args) {
    S3CommandFixture.Run run = S3CommandFixture.run(args);
    return new Run(run.exit(), run.out() + run.err());
  }

  private record Run(int exit, String out) {}
}
