package io.icerepl.app.engine.batch;

import io.icerepl.copier.batch.BatchJobs;
import java.util.Optional;
import java.util.function.Function;

/**
 * The S3 Batch Operations pre-copy of every backfill one command or service runs: its options and
 * the S3 Control client, opened on first use and closed with this.
 */
public final class BatchOperations implements AutoCloseable {
  /** No pre-copy. */
  public static final BatchOperations OFF =
      new BatchOperations(
          BatchOperationsOptions.OFF,
          account -> {
            throw new IllegalStateException("S3 Batch Operations are off");
          });

  private final BatchOperationsOptions options;
  private final Function<String, BatchJobs> open;
  private BatchJobs jobs;

  /**
   * @param open the jobs of an account, on a client this closes
   */
  public BatchOperations(BatchOperationsOptions options, Function<String, BatchJobs> open) {
    this.options = options;
    this.open = open;
  }

  public BatchOperationsOptions options() {
    return options;
  }

  /** The pre-copy phase telling {@code listener} where its job stands; empty when off. */
  public synchronized Optional<BatchPreCopy> preCopy(BatchJobListener listener) {
    if (!options.enabled()) {
      return Optional.empty();
    }
    if (jobs == null) {
      jobs = open.apply(options.account());
    }
    return Optional.of(new BatchPreCopy(options, jobs, listener));
  }

  @Override
  public synchronized void close() {
    if (jobs != null) {
      jobs.close();
    }
  }
}
