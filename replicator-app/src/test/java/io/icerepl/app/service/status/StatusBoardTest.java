package io.icerepl.app.service.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.catalog.CatalogException;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.fixtures.ShiftableClock;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.TableBusyException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A run's outcome sets the table's state, its status and the metrics that mirror it. */
class StatusBoardTest {
  private static final TableKey KEY =
      new TableKey("r", "a", "ns/t", "s3://src/wh/ns/t", "s3://dst/wh/ns/t");
  private static final Duration RETRY = Duration.ofSeconds(5);

  private final ShiftableClock clock = new ShiftableClock();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final StatusBoard board = new StatusBoard(clock, meters);

  @Test
  void aSucceededRunCountsItsCommitsAndBytesAndShowsTheReplicaInSync() {
    board.seen(KEY);
    board.succeeded(
        KEY,
        ReplicationSummary.builder().versionsApplied(3).bytesCopied(1_000).build(),
        observed(true));

    ReplicationStatus status = board.get(KEY).orElseThrow();
    assertThat(status.state()).isEqualTo(ReplicationState.IN_SYNC);
    assertThat(status.commitsTotal()).isEqualTo(3);
    assertThat(status.bytesCopiedTotal()).isEqualTo(1_000);
    assertThat(counter("replicator.commits")).isEqualTo(3);
    assertThat(counter("replicator.bytes.copied")).isEqualTo(1_000);
    assertThat(gauge("replicator.lag.seconds")).isZero();
  }

  @Test
  void aFailureThatRetriesWaitsAndIsNotCountedAsAFailure() {
    board.failed(
        KEY, new TableReplicationException("ns/t", new TableBusyException("Cannot lock")), RETRY);

    assertThat(board.get(KEY).orElseThrow().state()).isEqualTo(ReplicationState.WAITING);
    assertThat(counter("replicator.failures")).isZero();
    assertThat(board.failedTables()).isZero();
  }

  @Test
  void aDivergedReplicaIsFailedAndDivergedAndCounted() {
    board.failed(
        KEY,
        new TableReplicationException("ns/t", new DivergedReplicaException("Cannot replicate")),
        RETRY);

    assertThat(board.get(KEY).orElseThrow().state()).isEqualTo(ReplicationState.DIVERGED);
    assertThat(counter("replicator.failures")).isEqualTo(1);
    assertThat(gauge("replicator.failed.tables")).isEqualTo(1);
    assertThat(gauge("replicator.diverged.tables")).isEqualTo(1);
  }

  @Test
  void aCatalogFailureIsCountedByRuleAndTarget() {
    board.failed(
        KEY, new IllegalStateException("run", new CatalogException("Cannot load t", null)), RETRY);

    ReplicationStatus status = board.get(KEY).orElseThrow();
    assertThat(status.state()).isEqualTo(ReplicationState.FAILED);
    assertThat(status.lastError()).isEqualTo("run");
    assertThat(
            meters
                .get("replicator.catalog.failures")
                .tag("rule", "r")
                .tag("target", "a")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void aFailedRunThatCouldNotReadTheStoresLagsSinceTheReplicaWasLastInSync() {
    board.seen(KEY);
    board.succeeded(KEY, ReplicationSummary.none(), observed(true));
    clock.advance(Duration.ofSeconds(60));
    board.seen(KEY);
    board.failed(KEY, new IllegalStateException("Cannot read x"), RETRY);

    assertThat(board.get(KEY).orElseThrow().lagSeconds()).isEqualTo(60);
    assertThat(gauge("replicator.lag.seconds")).isEqualTo(60);
    assertThat(board.maxLagSeconds()).isEqualTo(60);
  }

  @Test
  void aRuleThatCannotBeListedLagsSinceItsLastListingUntilListedAgain() {
    board.discovered("r");
    clock.advance(Duration.ofSeconds(90));
    board.discoveryFailed("r", "s3://src/wh", new IllegalStateException("Cannot list"));

    assertThat(board.failedDiscoveries()).containsEntry("r", "Cannot list");
    assertThat(gauge("replicator.failed.discoveries")).isEqualTo(1);
    assertThat(board.maxLagSeconds()).isEqualTo(90);

    board.discovered("r");
    assertThat(board.failedDiscoveries()).isEmpty();
    assertThat(board.maxLagSeconds()).isZero();
  }

  private static Observation observed(boolean inSync) {
    return new Observation(
        "s3://src/wh/ns/t/metadata/v2.metadata.json",
        1_000L,
        "s3://dst/wh/ns/t/metadata/00002-r.metadata.json",
        "v2.metadata.json",
        1_000L,
        inSync,
        1_000L,
        inSync ? 0 : 1);
  }

  private double counter(String name) {
    return meters.get(name).tag("table", "ns/t").tag("target", "a").counter().count();
  }

  private double gauge(String name) {
    return name.equals("replicator.lag.seconds")
        ? meters.get(name).tag("table", "ns/t").gauge().value()
        : meters.get(name).gauge().value();
  }
}
