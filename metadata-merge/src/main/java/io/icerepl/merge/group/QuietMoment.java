package io.icerepl.merge.group;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.time.Duration;
import java.util.List;

/**
 * A moment to read a group at that no multi-table transaction straddles. Iceberg records no
 * transaction across tables: a multi-table commit (the REST protocol's {@code
 * /v1/transactions/commit}) lands one snapshot per table, each stamped when its writer produced it,
 * a few milliseconds apart. A cut between two such stamps would show the transaction in one table
 * and not in the other. A moment with no table's {@code main} changing in the {@code window} before
 * it cannot split a transaction whose snapshots lie closer together than the window: its earliest
 * snapshot would be in that window.
 */
public final class QuietMoment {
  private QuietMoment() {}

  /**
   * The latest moment at or before {@code atMs}, a multiple of {@code granularityMs}, with no
   * snapshot of any table stamped, and no change of its {@code main} logged, in the {@code window}
   * up to and including it. A zero window returns {@code atMs} rounded down.
   */
  public static long before(
      long atMs, long granularityMs, Duration window, List<TableMetadata> tables) {
    long moment = Math.floorDiv(atMs, granularityMs) * granularityMs;
    long windowMs = window.toMillis();
    if (windowMs <= 0) {
      return moment;
    }
    while (true) {
      long latest = Long.MIN_VALUE;
      for (TableMetadata table : tables) {
        for (TableMetadata.SnapshotLogEntry entry : table.snapshotLog()) {
          latest = latestIn(entry.timestampMs(), moment, windowMs, latest);
        }
        for (Snapshot snapshot : table.snapshots()) {
          latest = latestIn(snapshot.timestampMs(), moment, windowMs, latest);
        }
      }
      if (latest == Long.MIN_VALUE) {
        return moment;
      }
      // before that change: every moment from it to a window after it would see it in the window
      moment = Math.floorDiv(latest - 1, granularityMs) * granularityMs;
    }
  }

  private static long latestIn(long at, long moment, long windowMs, long latest) {
    return at > moment - windowMs && at <= moment && at > latest ? at : latest;
  }
}
