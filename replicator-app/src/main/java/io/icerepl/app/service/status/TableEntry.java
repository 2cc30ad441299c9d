package io.icerepl.app.service.status;

import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.app.engine.worker.TableKey;
import java.time.Instant;
import java.util.Optional;

/**
 * One replica's status as the {@link StatusBoard} keeps it; the board changes it while holding its
 * monitor. Lag is the time since {@link #lagSinceMs}, so it grows between runs while a table fails
 * or waits; a primary does not lag.
 */
final class TableEntry {
  final StatusMeters.TableMeters meters;
  final long watchedSinceMs;
  ReplicationState state = ReplicationState.BACKFILLING;
  Observation observed;

  /** Since when the replica lacks a source commit; null when in sync. */
  Long lagSinceMs;

  /** When the replica was last seen in sync; null before. */
  Long inSyncAtMs;

  /** A promoted replica's current metadata file, as its promotion or last fence read it. */
  String primaryFile;

  /** Whether the running (or last) run read where source and replica stand. */
  boolean observedThisRun;

  String lastError;
  Instant lastRunAt;
  long bytesPending;
  VerifyReport lastVerify;
  FailbackReport lastFailback;
  ReplicationStatus.BatchJob batchJob;

  TableEntry(StatusMeters.TableMeters meters, long watchedSinceMs) {
    this.meters = meters;
    this.watchedSinceMs = watchedSinceMs;
    this.lagSinceMs = watchedSinceMs;
  }

  void observe(Observation o, long now) {
    observed = o;
    if (o.inSync()) {
      lagSinceMs = null;
      inSyncAtMs = now;
    } else {
      lagSinceMs = o.oldestUnreplicatedMs();
    }
  }

  synchronized double lastVerifyProblems() {
    return lastVerify == null ? Double.NaN : lastVerify.problems();
  }

  void primaryAt(String file) {
    primaryFile = file;
  }

  synchronized long lagSeconds(long now) {
    return lagSinceMs == null || ReplicationStates.isPrimary(state)
        ? 0
        : secondsSince(lagSinceMs, now);
  }

  static long secondsSince(long ms, long now) {
    return Math.max(0, (now - ms) / 1000);
  }

  synchronized ReplicationStatus status(
      TableKey key, long now, Optional<WriterClocks.Finding> writerClock) {
    Observation o = observed;
    boolean primary = ReplicationStates.isPrimary(state);
    return new ReplicationStatus(
        key.rule(),
        key.target(),
        key.table(),
        state,
        key.sourceLocation(),
        key.targetLocation(),
        key.sourceTable().orElse(null),
        key.replicaTable().orElse(null),
        o == null ? null : o.replicatedSourceFile(),
        o == null || o.replicatedSourceUpdatedMs() == null
            ? null
            : Instant.ofEpochMilli(o.replicatedSourceUpdatedMs()),
        primary && primaryFile != null ? primaryFile : o == null ? null : o.replicaMetadataFile(),
        lagSeconds(now),
        o == null || primary ? 0 : o.lagSnapshots(),
        bytesPending,
        lastError,
        lastRunAt,
        (long) meters.commits().count(),
        (long) meters.bytes().count(),
        lastVerify,
        lastFailback,
        batchJob,
        writerClock.map(WriterClocks.Finding::seconds).orElse(0.0),
        writerClock.map(WriterClocks.Finding::note).orElse(null));
  }
}
