package io.icerepl.app.service.status;

import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.verify.VerifyReport;
import java.time.Instant;

/**
 * One replica's status, as the status API shows it.
 *
 * @param rule the rule's name
 * @param target the target's name
 * @param table the table's path relative to the prefixes (e.g. {@code ns/orders})
 * @param state where the replica stands
 * @param sourceLocation the source table location
 * @param targetLocation the replica table location
 * @param sourceTable the source table in its catalog, {@code <catalog>:<namespace>.<name>}, when
 *     its rule reads a catalog (null otherwise)
 * @param replicaTable the replica's entry in its target's catalog, {@code
 *     <catalog>:<namespace>.<name>}, when the target registers replicas (null otherwise)
 * @param lastSourceMetadataFile the source metadata file the replica was last built from, as the
 *     replica's metadata records it (null before the first replica version)
 * @param lastSourceCommitAt that file's {@code last-updated-ms} (null when unknown)
 * @param replicaMetadataFile the replica's current metadata file (null when there is none)
 * @param lagSeconds 0 when in sync, else seconds since the oldest source version the replica lacks;
 *     when the stores cannot be read, seconds since the replica was last seen in sync (or since the
 *     service started watching the table)
 * @param lagSnapshots source snapshots the replica lacks (not counting ones its retention expired)
 * @param bytesPending bytes of byte-for-byte copies the running commit still has to copy
 * @param lastError the last failure's message, cleared by the next success
 * @param lastRunAt when the last run ended (null before)
 * @param commitsTotal replica commits made since the service started
 * @param bytesCopiedTotal bytes copied since the service started
 * @param lastVerify the last verification that completed since the service started (its time,
 *     checked items, problems and first problem lines; null before)
 * @param lastFailback the last fail-back of the promoted replica since the service started: where
 *     it went and the tags that keep the old source's orphan commits (null before; the tags are
 *     kept for good in the original's replica state)
 * @param batchJob the S3 Batch Operations job of the replica's backfill since the service started
 *     (null when none)
 * @param writerClockAheadSeconds how far ahead of the replicator's clock the table's writer stamped
 *     a commit, as the last run found it, when beyond the allowance; 0 within it
 * @param writerClockNote what that means and what to do (null within the allowance)
 */
public record ReplicationStatus(
    String rule,
    String target,
    String table,
    ReplicationState state,
    String sourceLocation,
    String targetLocation,
    String sourceTable,
    String replicaTable,
    String lastSourceMetadataFile,
    Instant lastSourceCommitAt,
    String replicaMetadataFile,
    long lagSeconds,
    int lagSnapshots,
    long bytesPending,
    String lastError,
    Instant lastRunAt,
    long commitsTotal,
    long bytesCopiedTotal,
    VerifyReport lastVerify,
    FailbackReport lastFailback,
    BatchJob batchJob,
    double writerClockAheadSeconds,
    String writerClockNote) {

  /**
   * The S3 Batch Operations job of the replica's backfill, as last asked.
   *
   * @param id the job's id
   * @param status its status ({@code New}, {@code Preparing}, {@code Active}, {@code Complete},
   *     {@code Failed}, {@code Cancelled}, ...)
   * @param succeeded tasks succeeded so far
   * @param failed tasks failed so far (the replicator's own pass copies their files)
   * @param total the job's tasks
   */
  public record BatchJob(String id, String status, long succeeded, long failed, long total) {}
}
