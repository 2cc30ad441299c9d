package io.icerepl.app.engine.backfill;

import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;

/** Follows a backfill; called from its tables' threads, so implementations must be thread-safe. */
public interface BackfillListener {
  BackfillListener NONE =
      new BackfillListener() {
        @Override
        public void discovered(int tables) {}

        @Override
        public void copying(TableKey key, CopyProgress progress) {}

        @Override
        public void finished(TableOutcome outcome) {}
      };

  /** Every rule was listed: {@code tables} runs are to be done, one per table and target. */
  void discovered(int tables);

  /** How far the copying of one table's current replica commit is. */
  void copying(TableKey key, CopyProgress progress);

  void finished(TableOutcome outcome);

  /** Where the S3 Batch Operations job of one table's backfill stands, each time it is asked. */
  default void batchJob(TableKey key, JobProgress job) {}
}
