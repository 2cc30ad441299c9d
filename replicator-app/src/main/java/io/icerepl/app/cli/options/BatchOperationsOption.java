package io.icerepl.app.cli.options;

import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.batch.BatchOperationsOptions;
import io.icerepl.copier.batch.BatchJobs;
import io.icerepl.merge.retention.Durations;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Whether a backfill hands its byte-for-byte copies to S3 Batch Operations first, and when: the
 * role turns it on.
 */
public final class BatchOperationsOption {
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
      description =
          "Files still missing on the target from which a job is created. Default: "
              + BatchOperationsOptions.DEFAULT_MIN_FILES
              + " (backfill: replicator.batch-operations.min-files of its --config).")
  Long minFiles;

  @Option(
      names = "--batch-operations-min-bytes",
      paramLabel = "<size>",
      converter = ByteSize.class,
      description =
          "Bytes still missing on the target from which a job is created; either minimum"
              + " suffices. Default: 1TiB (backfill: replicator.batch-operations.min-bytes of its"
              + " --config).")
  Long minBytes;

  @Option(
      names = "--batch-operations-poll-interval",
      paramLabel = "<duration>",
      description =
          "How often a running job is asked where it stands (e.g. 30s, 2m). Default: 30s"
              + " (backfill: replicator.batch-operations.poll-interval of its --config).")
  String pollInterval;

  @Option(
      names = "--batch-operations-endpoint",
      paramLabel = "<url>",
      hidden = true,
      description =
          "S3 Control endpoint instead of AWS's, asked without the account id host prefix.")
  URI endpoint;

  /**
   * These options over {@code configured}: each option given replaces its setting, and a role given
   * turns the phase on.
   */
  public BatchOperationsOptions options(BatchOperationsOptions configured) {
    return new BatchOperationsOptions(
        Optional.ofNullable(role).or(configured::roleArn),
        Optional.ofNullable(account).or(configured::accountId),
        minFiles != null ? minFiles : configured.minFiles(),
        minBytes != null ? minBytes : configured.minBytes(),
        pollInterval != null
            ? Duration.ofMillis(Durations.parseMillis(pollInterval))
            : configured.pollInterval(),
        configured.priority());
  }

  /**
   * The pre-copy of the command's backfills; the caller closes it.
   *
   * @param region the target bucket's region, where the jobs run
   * @param configured the settings of a configuration file, or {@link BatchOperationsOptions#OFF}
   */
  public BatchOperations open(String region, BatchOperationsOptions configured) {
    Optional<URI> at = Optional.ofNullable(endpoint);
    return new BatchOperations(
        options(configured), account -> new BatchJobs(BatchJobs.client(region, at), account));
  }
}
