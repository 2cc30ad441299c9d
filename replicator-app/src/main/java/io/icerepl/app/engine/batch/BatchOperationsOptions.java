package io.icerepl.app.engine.batch;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * When and how a backfill hands its byte-for-byte copies to S3 Batch Operations before the ordinary
 * pass.
 *
 * @param roleArn the role S3 Batch Operations assumes; empty: the phase is off
 * @param accountId the account the jobs are created in; empty: the role's
 * @param minFiles files still missing on the target from which a job is worth it
 * @param minBytes bytes still missing on the target from which a job is worth it (either threshold
 *     suffices)
 * @param pollInterval how often a running job is asked where it stands
 * @param priority the jobs' priority among the account's jobs
 */
public record BatchOperationsOptions(
    Optional<String> roleArn,
    Optional<String> accountId,
    long minFiles,
    long minBytes,
    Duration pollInterval,
    int priority) {

  public static final long DEFAULT_MIN_FILES = 100_000;
  public static final long DEFAULT_MIN_BYTES = 1L << 40;
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(30);
  public static final int DEFAULT_PRIORITY = 10;

  /** The phase off. */
  public static final BatchOperationsOptions OFF =
      new BatchOperationsOptions(
          Optional.empty(),
          Optional.empty(),
          DEFAULT_MIN_FILES,
          DEFAULT_MIN_BYTES,
          DEFAULT_POLL_INTERVAL,
          DEFAULT_PRIORITY);

  public BatchOperationsOptions {
    Objects.requireNonNull(roleArn, "roleArn");
    Objects.requireNonNull(accountId, "accountId");
    roleArn.ifPresent(BatchOperationsOptions::accountOf);
    if (minFiles < 1 || minBytes < 1) {
      throw new IllegalArgumentException(
          "Cannot use S3 Batch Operations: the minimum files and bytes must be positive, got "
              + minFiles
              + " and "
              + minBytes);
    }
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException(
          "Cannot use S3 Batch Operations: the poll interval must be positive, got "
              + pollInterval);
    }
  }

  /** The phase on with the given role and the defaults otherwise. */
  public static BatchOperationsOptions withRole(String roleArn) {
    return new BatchOperationsOptions(
        Optional.of(roleArn),
        Optional.empty(),
        DEFAULT_MIN_FILES,
        DEFAULT_MIN_BYTES,
        DEFAULT_POLL_INTERVAL,
        DEFAULT_PRIORITY);
  }

  public boolean enabled() {
    return roleArn.isPresent();
  }

  /** The account jobs are created in: the one given, else the role's. */
  public String account() {
    return accountId.orElseGet(() -> accountOf(roleArn.orElseThrow()));
  }

  /**
   * The account of a role ARN ({@code arn:aws:iam::123456789012:role/name}). Here, not beside the
   * S3 Control client, so that options read without the phase load no AWS class.
   *
   * @throws IllegalArgumentException when {@code roleArn} is not an IAM role ARN
   */
  static String accountOf(String roleArn) {
    String[] parts = roleArn.split(":", 6);
    if (parts.length != 6
        || !parts[0].equals("arn")
        || !parts[2].equals("iam")
        || !parts[4].matches("\\d{12}")
        || !parts[5].startsWith("role/")) {
      throw new IllegalArgumentException(
          "Cannot use " + roleArn + " as the S3 Batch Operations role: not an IAM role ARN");
    }
    return parts[4];
  }

  /** Whether a copy of this many files and bytes is worth a job. */
  public boolean worthAJob(long files, long bytes) {
    return files >= minFiles || bytes >= minBytes;
  }
}
