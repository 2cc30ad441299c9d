package io.icerepl.app.service.status;

import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.catalog.CatalogException;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.ReplicationException;

/**
 * Which {@link ReplicationState} a run's outcome means, and what each state asks of the service: a
 * retry, an operator, or nothing (a primary).
 */
public final class ReplicationStates {
  private ReplicationStates() {}

  /** The state a failed run leaves its replica in. */
  static ReplicationState of(Exception error) {
    if (error instanceof TableReplicationException t && t.promoted().isPresent()) {
      return switch (t.promoted().get().fence()) {
        case PROMOTED -> ReplicationState.PROMOTED;
        // the roles reversed as asked: nothing is wrong
        case FAILED_BACK -> ReplicationState.FAILED_BACK;
        // written on behind the source's back since the last fail-back: someone must act
        case DIVERGED_AFTER_PROMOTION -> ReplicationState.DIVERGED;
        default -> ReplicationState.OLD_PRIMARY_WROTE;
      };
    }
    Throwable cause = error instanceof TableReplicationException t ? t.getCause() : error;
    if (cause instanceof ReplicationException r && r.retryable()) {
      return ReplicationState.WAITING;
    }
    if (cause instanceof DivergedReplicaException) {
      return ReplicationState.DIVERGED;
    }
    return ReplicationState.FAILED;
  }

  /** The state of a replica read where it stands (after a run, or restored at start). */
  static ReplicationState of(Observation observed) {
    return observed.replicaMetadataFile() == null
        ? ReplicationState.BACKFILLING
        : observed.inSync() ? ReplicationState.IN_SYNC : ReplicationState.LAGGING;
  }

  /** Whether a catalog was down, refused or answered with an error somewhere in the cause chain. */
  static boolean isCatalogFailure(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof CatalogException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Two primaries: the old one wrote after a failover, while the promoted table serves. Not a
   * failure of the replica, and nothing retries it into shape.
   */
  public static boolean splitBrain(ReplicationState state) {
    return state == ReplicationState.OLD_PRIMARY_WROTE;
  }

  /**
   * A promoted replica, a primary: its writers' version is its current one, and it does not lag
   * behind a source it no longer follows.
   */
  public static boolean isPrimary(ReplicationState state) {
    return state == ReplicationState.PROMOTED
        || state == ReplicationState.OLD_PRIMARY_WROTE
        || state == ReplicationState.FAILED_BACK;
  }

  /** States no retry changes: said at WARN when they start, not at every retry. */
  static boolean waitsForAnOperator(ReplicationState state) {
    return splitBrain(state) || state == ReplicationState.DIVERGED;
  }

  /** FAILED or DIVERGED: the health is down until an operator acts. */
  public static boolean needsOperator(ReplicationState state) {
    return state == ReplicationState.FAILED || state == ReplicationState.DIVERGED;
  }

  /** Whether a failed run in this state counts in {@code replicator_failures_total}. */
  static boolean countsAsFailure(ReplicationState state) {
    return state != ReplicationState.WAITING && !isPrimary(state);
  }
}
