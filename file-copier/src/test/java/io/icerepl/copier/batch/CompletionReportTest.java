package io.icerepl.copier.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.localstack.EmbeddedS3;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** Completion reports in the shape S3 Batch Operations writes them, read from the embedded S3. */
class CompletionReportTest {
  private static final String JOB = "f8fb9d89-a3aa-461d-bddc-ea6a1b131955";

  @Test
  void countsTasksByOutcomeAndFailuresByErrorCode() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3ObjectStore store = store(s3)) {
      s3.createBucket("reports");
      String folder = "t/metadata/.replicator-batch/tok/report/job-" + JOB;
      put(
          s3,
          folder + "/results/6217b0fab0de85c408b4be96aeaca9b195a7daa5.csv",
          "source,wh/t/data/a.parquet,,succeeded,200,,Successful\n"
              + "source,wh/t/data/b%20c.parquet,,succeeded,200,,Successful\n");
      // as AWS's examples spell failed tasks: the HTTP status before the error code, a quoted
      // message with commas and doubled quotes
      put(
          s3,
          folder + "/results/b2ddad417e94331e9f37b44f1faf8c7ed5873f2e.csv",
          "source,wh/t/data/d%2Be.parquet,,failed,403,AccessDenied,\"Access Denied, \"\"really\"\"\"\n"
              + "source,wh/t/data/f.parquet,,failed,500,InternalError,\"We encountered an internal"
              + " error. Please try again.\"\n"
              + "source,wh/t/data/g.parquet,,failed,403,AccessDenied,Access Denied\n");
      put(
          s3,
          folder + "/manifest.json",
          "{\"Format\":\"Report_CSV_20180820\",\"ReportCreationDate\":\"2026-11-30T17:48:39.725Z\","
              + "\"Results\":[{\"TaskExecutionStatus\":\"succeeded\",\"Bucket\":\"reports\","
              + "\"MD5Checksum\":\"83b1c4cbe93fc893f54053697e10fd6e\",\"Key\":\""
              + folder
              + "/results/6217b0fab0de85c408b4be96aeaca9b195a7daa5.csv\"},"
              + "{\"TaskExecutionStatus\":\"failed\",\"Bucket\":\"reports\","
              + "\"MD5Checksum\":\"22ee037f3515975f7719699e5c416eaa\",\"Key\":\""
              + folder
              + "/results/b2ddad417e94331e9f37b44f1faf8c7ed5873f2e.csv\"}],"
              + "\"ReportSchema\":\"Bucket, Key, VersionId, TaskStatus, ErrorCode,"
              + " HTTPStatusCode, ResultMessage\"}");

      CompletionReport report =
          CompletionReport.read(store, "s3://reports/t/metadata/.replicator-batch/tok/report", JOB);

      assertThat(report.succeeded()).isEqualTo(2);
      assertThat(report.failed()).isEqualTo(3);
      assertThat(report.failuresByCode())
          .isEqualTo(Map.of("AccessDenied", 2L, "InternalError", 1L));
      assertThat(report.firstFailed())
          .containsExactly(
              "s3://source/wh/t/data/d+e.parquet",
              "s3://source/wh/t/data/f.parquet",
              "s3://source/wh/t/data/g.parquet");
    }
  }

  @Test
  void aJobWithoutReportIsNoSuchFile() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3ObjectStore store = store(s3)) {
      s3.createBucket("reports");
      assertThatThrownBy(() -> CompletionReport.read(store, "s3://reports/none", JOB))
          .isInstanceOf(NoSuchFileException.class);
    }
  }

  @Test
  void csvFieldsKeepQuotedCommas() {
    assertThat(CompletionReport.fields("b,k,,failed,200,PermanentFailure,\"a, \"\"b\"\"\""))
        .isEqualTo(List.of("b", "k", "", "failed", "200", "PermanentFailure", "a, \"b\""));
  }

  private static S3ObjectStore store(EmbeddedS3 s3) {
    return S3ObjectStore.create(
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true),
        S3StoreSettings.defaults("test"),
        S3Resilience.defaults());
  }

  private static void put(EmbeddedS3 s3, String key, String content) {
    s3.client().putObject(b -> b.bucket("reports").key(key), RequestBody.fromString(content));
  }
}
