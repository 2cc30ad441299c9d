package io.icerepl.app.cli;

import io.icerepl.app.engine.batch.BatchJobListener;
import io.icerepl.app.engine.batch.BatchOperationsOptions;
import io.icerepl.app.engine.batch.BatchPreCopy;
import io.icerepl.copier.batch.BatchJobs;
import io.icerepl.merge.retention.Durations;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;
import software.amazon.awssdk.services.s3control.S3ControlClient;

/**
 * Whether a backfill hands its byte-for-byte copies to S3 Batch Operations first, and when: the
 * role turns it on. The client it opens is closed with this.
 */
public final class BatchOperationsOption implements AutoCloseable {
  @Option(
      names = "--batch-operations-role",
      paramLabel = "<arn>",
      description =
          "IAM role S3 Batch Operations assumes to copy a backfill's data and delete files before"
              + " the replicator's own pass (S3 to S3, prefix-only mappings). Unset: no job.")
  String role;

  @Option(
      names = "--batch-operations-account",
      paramLabel = "<id>",
      description = "Account the jobs are created in. Default: the role's account.")
  String account;

  @Option(
      names = "--batch-operations-min-files",
      paramLabel = "<n>",
      description = "Files still missing on the target from which a job is created.")
  long minFiles = BatchOperationsOptions.DEFAULT_MIN_FILES;

  @Option(
      names = "--batch-operations-min-bytes",
      paramLabel = "<bytes>",
      description =
          "Bytes still missing on the target from which a job is created (either minimum"
              + " suffices).")
  long minBytes = BatchOperationsOptions.DEFAULT_MIN_BYTES;

  @Option(
      names = "--batch-operations-poll-interval",
      paramLabel = "<duration>",
      description = "How often a running job is asked where it stands (units ms, s, m, h).")
  String pollInterval = "30s";

  @Option(
      names = "--batch-operations-endpoint",
      paramLabel = "<url>",
      hidden = true,
      description =
          "S3 Control endpoint instead of AWS's, asked without the account id host prefix.")
  URI endpoint;

  private S3ControlClient client;

  public BatchOperationsOptions options() {
    return new BatchOperationsOptions(
        Optional.ofNullable(role),
        Optional.ofNullable(account),
        minFiles,
        minBytes,
        Duration.ofMillis(Durations.parseMillis(pollInterval)),
        BatchOperationsOptions.DEFAULT_PRIORITY);
  }

  /**
   * The pre-copy phase, when the role is given.
   *
   * @param region the target bucket's region, where the job runs
   */
  public Optional<BatchPreCopy> preCopy(String region, BatchJobListener listener) {
    BatchOperationsOptions options = options();
    if (!options.enabled()) {
      return Optional.empty();
    }
    if (client == null) {
      client = BatchJobs.client(region, Optional.ofNullable(endpoint));
    }
    return Optional.of(
        new BatchPreCopy(options, new BatchJobs(client, options.account()), listener));
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
  }
}
