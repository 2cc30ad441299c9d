package io.icerepl.copier.batch;

import java.util.Objects;

/**
 * An S3 Batch Operations job that copies the objects a CSV manifest lists into one bucket, each
 * under its own key with a prefix added.
 *
 * @param token the client request token, the same for every attempt at the same copy, so AWS
 *     creates the job once
 * @param description names the token too, so a job can be found by listing
 * @param manifestPath {@code s3://bucket/key} of the CSV manifest
 * @param manifestETag the manifest object's ETag
 * @param targetBucket the bucket every object is copied into
 * @param targetKeyPrefix added before each source key; empty for the same key
 * @param reportPath {@code s3://bucket/prefix} under which S3 writes the completion report
 * @param roleArn the role S3 Batch Operations assumes
 * @param priority the job's priority among the account's jobs
 */
public record CopyJob(
    String token,
    String description,
    String manifestPath,
    String manifestETag,
    String targetBucket,
    String targetKeyPrefix,
    String reportPath,
    String roleArn,
    int priority) {

  public CopyJob {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(manifestPath, "manifestPath");
    Objects.requireNonNull(manifestETag, "manifestETag");
    Objects.requireNonNull(targetBucket, "targetBucket");
    Objects.requireNonNull(targetKeyPrefix, "targetKeyPrefix");
    Objects.requireNonNull(reportPath, "reportPath");
    Objects.requireNonNull(roleArn, "roleArn");
  }
}
