package io.icerepl.app.engine.batch;

import io.icerepl.copier.batch.JobProgress;

/** Hears where a table's S3 Batch Operations job stands, each time it is asked. */
@FunctionalInterface
public interface BatchJobListener {
  BatchJobListener NONE = (table, progress) -> {};

  void progress(String table, JobProgress progress);
}
