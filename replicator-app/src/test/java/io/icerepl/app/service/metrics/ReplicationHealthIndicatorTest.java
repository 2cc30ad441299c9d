package io.icerepl.app.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.service.status.ReplicationState;
import io.icerepl.app.service.status.ReplicationStatus;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.head.SourceHead;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

class ReplicationHealthIndicatorTest {
  private static final TableKey T1 =
      new TableKey("r", "a", "ns/t1", "file:/s/ns/t1", "file:/a/ns/t1");
  private static final TableKey T2 =
      new TableKey("r", "a", "ns/t2", "file:/s/ns/t2", "file:/a/ns/t2");
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-01-01T00:10:00Z"), ZoneOffset.UTC);

  private final StatusBoard board = new StatusBoard(CLOCK, new SimpleMeterRegistry());
  private final ReplicationHealthIndicator health = new ReplicationHealthIndicator(board);

  @Test
  void upWhenNoReplicaFailedDegradedWhenSomeDidDownWhenAllDid() {
    board.succeeded(T1, summary(), inSync());
    board.succeeded(T2, summary(), inSync());
    assertThat(health.health().getStatus()).isEqualTo(Status.UP);

    board.failed(
        T2, new IllegalStateException("Cannot read manifest list x"), Duration.ofSeconds(5));
    assertThat(health.health().getStatus()).isEqualTo(ReplicationHealthIndicator.DEGRADED);
    assertThat(health.health().getDetails()).containsEntry("failed", List.of("a/ns/t2"));

    board.failed(T1, new IllegalStateException("boom"), Duration.ofSeconds(5));
    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
  }

  @Test
  void aPromotedReplicaShowsPromotedThenOldPrimaryWroteAndNeverCountsAsAFailure() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    StatusBoard promotedBoard = new StatusBoard(CLOCK, meters);
    Promotion promotion =
        new Promotion(1, 1_767_225_000_000L, "now", "00003-a.metadata.json", null, 4);

    promotedBoard.failed(
        T1,
        new TableReplicationException(
            "ns/t1",
            PromotedReplicaException.of(
                "ns/t1",
                "file:/a/ns/t1",
                promotion,
                "file:/s/ns/t1/metadata/00003-a.metadata.json")),
        null);
    ReplicationStatus status = promotedBoard.get(T1).orElseThrow();
    assertThat(status.state()).isEqualTo(ReplicationState.PROMOTED);
    assertThat(status.lastError())
        .contains("promoted at 2025-12-31T23:50:00Z, epoch 1, from source version 00003-a");

    promotedBoard.failed(
        T1,
        new TableReplicationException(
            "ns/t1",
            PromotedReplicaException.of(
                "ns/t1",
                "file:/a/ns/t1",
                promotion,
                "file:/s/ns/t1/metadata/00004-b.metadata.json")),
        null);
    status = promotedBoard.get(T1).orElseThrow();
    assertThat(status.state()).isEqualTo(ReplicationState.OLD_PRIMARY_WROTE);
    assertThat(status.lastError())
        .contains("the old primary wrote after failover", "00004-b", "00003-a");
    // two primaries: not a failure of the replica, but a status of its own to alert on
    org.springframework.boot.health.contributor.Health splitBrain =
        new ReplicationHealthIndicator(promotedBoard).health();
    assertThat(splitBrain.getStatus()).isEqualTo(ReplicationHealthIndicator.SPLIT_BRAIN);
    assertThat(splitBrain.getDetails()).containsEntry("splitBrain", java.util.List.of("a/ns/t1"));
    assertThat(splitBrain.getDetails()).containsEntry("failed", java.util.List.of());
    assertThat(promotedBoard.splitBrainTables()).isEqualTo(1);
    assertThat(meters.find("replicator.failures").counter().count()).isZero();
  }

  @Test
  void anAmbiguousHeadMakesTheTableWaitWithTheReason() {
    board.failed(
        T1,
        new TableReplicationException(
            "t1", new SourceHead.AmbiguousHeadException("Cannot resolve x")),
        Duration.ofSeconds(5));
    ReplicationStatus status = board.get(T1).orElseThrow();
    assertThat(status.state()).isEqualTo(ReplicationState.WAITING);
    assertThat(status.lastError()).contains("Cannot resolve x");
    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
  }

  @Test
  void aReplicaChangedBehindTheReplicatorsBackIsDiverged() {
    board.failed(
        T1,
        new TableReplicationException(
            "t1",
            new io.icerepl.merge.error.DivergedReplicaException(
                "Cannot replicate table t1 into y:"
                    + " it already holds a table the replicator did not write")),
        Duration.ofSeconds(5));
    assertThat(board.get(T1).orElseThrow().state()).isEqualTo(ReplicationState.DIVERGED);
  }

  @Test
  void aLaggingReplicaReportsTheAgeOfItsOldestMissingCommit() {
    long fiveMinutesAgo = CLOCK.millis() - 300_000;
    board.succeeded(
        T1,
        summary(),
        new Observation(
            "s/v3.metadata.json",
            CLOCK.millis(),
            "a/v2.metadata.json",
            "s/v2.metadata.json",
            fiveMinutesAgo,
            false,
            fiveMinutesAgo,
            2));
    ReplicationStatus status = board.get(T1).orElseThrow();
    assertThat(status.state()).isEqualTo(ReplicationState.LAGGING);
    assertThat(status.lagSeconds()).isEqualTo(300);
    assertThat(status.lagSnapshots()).isEqualTo(2);
  }

  private static ReplicationSummary summary() {
    return ReplicationSummary.builder()
        .versionsApplied(1)
        .snapshotsAdded(1)
        .filesCopied(2)
        .bytesCopied(100)
        .filesRewritten(1)
        .replicaMetadataFiles(List.of("a/v1.metadata.json"))
        .build();
  }

  private static Observation inSync() {
    return new Observation(
        "s/v1.metadata.json",
        CLOCK.millis(),
        "a/v1.metadata.json",
        "s/v1.metadata.json",
        CLOCK.millis(),
        true,
        CLOCK.millis(),
        0);
  }
}
