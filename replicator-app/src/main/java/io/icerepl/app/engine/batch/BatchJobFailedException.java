package io.icerepl.app.engine.batch;

import io.icerepl.merge.error.ReplicationException;

/**
 * An S3 Batch Operations job of a backfill ended Failed or Cancelled: nothing of the commit was
 * published. Running again follows the same job, so it stays failed until the job's folder is
 * removed or the source moves on.
 */
public final class BatchJobFailedException extends ReplicationException {
  public BatchJobFailedException(String message) {
    super(message, null);
  }
}
