package io.icerepl.merge.group;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.time.Duration;
import java.util.Arrays;
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
    long[] changes = changesNewestFirst(tables);
    // each step moves the moment before the newest change in its window; the changes passed over
    // are after every later moment, so one pass over them, newest first, finds the quiet moment
    int next = 0;
    while (next < changes.length) {
      long latest = changes[next];
      if (latest > moment) {
        next++;
      } else if (latest > moment - windowMs) {
        // before that change: every moment from it to a window after it would see it in the window
        moment = Math.floorDiv(latest - 1, granularityMs) * granularityMs;
        next++;
      } else {
        return moment;
      }
    }
    return moment;
  }

  /** Every table's snapshot stamps and {@code snapshot-log} times, newest first. */
  private static long[] changesNewestFirst(List<TableMetadata> tables) {
    int count = 0;
    for (TableMetadata table : tables) {
      count += table.snapshotLog().size() + table.snapshots().size();
    }
    long[] changes = new long[count];
    int i = 0;
    for (TableMetadata table : tables) {
      for (TableMetadata.SnapshotLogEntry entry : table.snapshotLog()) {
        changes[i++] = entry.timestampMs();
      }
      for (Snapshot snapshot : table.snapshots()) {
        changes[i++] = snapshot.timestampMs();
      }
    }
    Arrays.sort(changes);
    for (int low = 0, high = changes.length - 1; low < high; low++, high--) {
      long swap = changes[low];
      changes[low] = changes[high];
      changes[high] = swap;
    }
    return changes;
  }
}
