package io.icerepl.app.service.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.copier.batch.JobProgress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A table's status shows where the S3 Batch Operations job of its backfill stands. */
class BatchJobStatusTest {
  private static final TableKey KEY =
      new TableKey("r", "a", "ns/t", "s3://src/wh/ns/t", "s3://dst/wh/ns/t");

  @Test
  void theStatusShowsTheLastProgressHeard() {
    StatusBoard board = new StatusBoard(Clock.systemUTC(), new SimpleMeterRegistry());
    board.seen(KEY);
    assertThat(board.get(KEY).orElseThrow().batchJob()).isNull();

    board.batchJob(KEY, new JobProgress("job-1", "Preparing", 0, 0, 0, List.of()));
    board.batchJob(KEY, new JobProgress("job-1", "Active", 700, 3, 1000, List.of()));

    assertThat(board.get(KEY).orElseThrow().batchJob())
        .isEqualTo(new ReplicationStatus.BatchJob("job-1", "Active", 700, 3, 1000));
  }
}
