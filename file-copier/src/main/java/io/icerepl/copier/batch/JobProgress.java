package io.icerepl.copier.batch;

import java.util.List;

/**
 * Where an S3 Batch Operations job stands.
 *
 * @param jobId the job's id
 * @param status the job's status as S3 names it ({@code New}, {@code Preparing}, {@code Active},
 *     {@code Complete}, {@code Failed}, {@code Cancelled}, ...)
 * @param succeeded tasks that succeeded so far
 * @param failed tasks that failed so far
 * @param total the job's tasks, 0 until S3 has read its manifest
 * @param failureReasons why the job failed, as S3 says it
 */
public record JobProgress(
    String jobId,
    String status,
    long succeeded,
    long failed,
    long total,
    List<String> failureReasons) {

  public static final String COMPLETE = "Complete";
  public static final String FAILED = "Failed";
  public static final String CANCELLED = "Cancelled";

  public JobProgress {
    failureReasons = List.copyOf(failureReasons);
  }

  /** Whether the job will not change any more. */
  public boolean finished() {
    return status.equals(COMPLETE) || status.equals(FAILED) || status.equals(CANCELLED);
  }
}
