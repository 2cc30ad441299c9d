package io.icerepl.app.service.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.catalog.CatalogException;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.TableBusyException;
import org.junit.jupiter.api.Test;

/** Which state a run's outcome means, and which states count, lag or need an operator. */
class ReplicationStatesTest {
  @Test
  void aRetryableCauseWaitsADivergedOneDivergesAnyOtherFails() {
    assertThat(ReplicationStates.of(failure(new TableBusyException("Cannot lock t"))))
        .isEqualTo(ReplicationState.WAITING);
    assertThat(ReplicationStates.of(failure(new DivergedReplicaException("Cannot replicate t"))))
        .isEqualTo(ReplicationState.DIVERGED);
    assertThat(ReplicationStates.of(failure(new IllegalStateException("Cannot read x"))))
        .isEqualTo(ReplicationState.FAILED);
    assertThat(ReplicationStates.of(new IllegalStateException("Cannot read x")))
        .isEqualTo(ReplicationState.FAILED);
  }

  @Test
  void aCatalogFailureIsFoundAnywhereInTheCauseChain() {
    CatalogException down = new CatalogException("Cannot load t: refused", null);

    assertThat(ReplicationStates.isCatalogFailure(failure(new IllegalStateException("x", down))))
        .isTrue();
    assertThat(ReplicationStates.isCatalogFailure(failure(new IllegalStateException("x"))))
        .isFalse();
  }

  @Test
  void anObservedReplicaIsBackfillingWithoutAFileElseInSyncOrLagging() {
    assertThat(ReplicationStates.of(observed(null, false))).isEqualTo(ReplicationState.BACKFILLING);
    assertThat(ReplicationStates.of(observed("v2.metadata.json", true)))
        .isEqualTo(ReplicationState.IN_SYNC);
    assertThat(ReplicationStates.of(observed("v2.metadata.json", false)))
        .isEqualTo(ReplicationState.LAGGING);
  }

  @Test
  void onlyFailuresNoRetryOrPromotionExplainsAreCounted() {
    assertThat(ReplicationStates.countsAsFailure(ReplicationState.FAILED)).isTrue();
    assertThat(ReplicationStates.countsAsFailure(ReplicationState.DIVERGED)).isTrue();
    assertThat(ReplicationStates.countsAsFailure(ReplicationState.WAITING)).isFalse();
    for (ReplicationState primary :
        new ReplicationState[] {
          ReplicationState.PROMOTED,
          ReplicationState.OLD_PRIMARY_WROTE,
          ReplicationState.FAILED_BACK
        }) {
      assertThat(ReplicationStates.isPrimary(primary)).as("%s", primary).isTrue();
      assertThat(ReplicationStates.countsAsFailure(primary)).as("%s", primary).isFalse();
    }
    assertThat(ReplicationStates.needsOperator(ReplicationState.OLD_PRIMARY_WROTE)).isFalse();
    assertThat(ReplicationStates.waitsForAnOperator(ReplicationState.OLD_PRIMARY_WROTE)).isTrue();
  }

  private static TableReplicationException failure(RuntimeException cause) {
    return new TableReplicationException("ns/t", cause);
  }

  private static Observation observed(String replicaFile, boolean inSync) {
    return new Observation(
        "s3://src/wh/ns/t/metadata/v2.metadata.json",
        1_000L,
        replicaFile,
        replicaFile == null ? null : "v2.metadata.json",
        1_000L,
        inSync,
        1_000L,
        inSync ? 0 : 1);
  }
}
