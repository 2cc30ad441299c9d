package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.merge.model.TableMetadata;

/** Told where each table stands as runs and discovery go; the service's status board listens. */
public interface TableStatus {

  /** A run of the key starts. */
  void seen(TableKey key);

  /** Whether the key's status is known since the start. */
  boolean known(TableKey key);

  /** Where a replica not seen since the start stands, read before its first run. */
  void restored(TableKey key, Observation observed);

  /** Where a failed run left source and replica. */
  void observed(TableKey key, Observation observed);

  void succeeded(TableKey key, ReplicationSummary summary, Observation observed);

  /**
   * A run read the key's source metadata, {@code source}, by {@code readByMs} (the replicator's
   * clock): every commit it names was made before then, so a stamp later than that by more than the
   * allowance is a writer's clock running ahead.
   */
  default void sourceRead(TableKey key, TableMetadata source, long readByMs) {}

  void progress(TableKey key, CopyProgress progress);

  /** The rule's source was listed. */
  void discovered(String rule);

  void discoveryFailed(String rule, String source, RuntimeException error);

  /** The catalog of the key's rule no longer lists its table; the replica is kept. */
  void sourceDropped(TableKey key);

  /** A verification of the key's replica ended with {@code report}. */
  void verified(TableKey key, VerifyReport report);

  /** A verification of the key's replica could not complete. */
  void verifyFailed(TableKey key, RuntimeException error);

  /** The key's replica was promoted (or an earlier promotion finished): it is a primary now. */
  void promoted(TableKey key, PromotionResult result);

  /** The key's promoted replica was failed back into its original location. */
  void failedBack(TableKey key, FailbackReport report);

  /** Where the S3 Batch Operations job of the key's backfill stands, each time it is asked. */
  default void batchJob(TableKey key, JobProgress job) {}
}
