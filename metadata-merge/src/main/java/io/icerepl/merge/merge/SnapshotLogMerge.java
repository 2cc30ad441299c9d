package io.icerepl.merge.merge;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadata.SnapshotLogEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Merges {@code snapshot-log}: the replica's older entries that the source no longer logs, then the
 * source's log in its own order (never re-sorted: rollbacks repeat ids and timestamps tie).
 * Duplicates go by (timestamp, id). An entry whose snapshot the replica does not hold is dropped
 * with every entry before it, the spec's rule that {@code asOfTime} relies on. Entries of snapshots
 * only kept refs reach are left out: they were never current on the merged table.
 */
final class SnapshotLogMerge {
  private SnapshotLogMerge() {}

  /**
   * @return the merged log; the source's own list when it is the result as it is (a backfill),
   *     since a long history's log is not worth a copy
   */
  static List<SnapshotLogEntry> merge(
      TableMetadata replica,
      TableMetadata source,
      SnapshotIdIndex heldSnapshotIds,
      Set<Long> keptOnly) {
    List<SnapshotLogEntry> sourceLog = source.snapshotLog();
    EntrySet inSource = new EntrySet(sourceLog.size());
    boolean repeats = false;
    for (SnapshotLogEntry entry : sourceLog) {
      repeats |= !inSource.add(entry);
    }
    List<SnapshotLogEntry> merged = new ArrayList<>();
    if (replica != null) {
      EntrySet replicaOnly = new EntrySet(0);
      for (SnapshotLogEntry entry : replica.snapshotLog()) {
        if (!inSource.contains(entry)
            && !keptOnly.contains(entry.snapshotId())
            && replicaOnly.add(entry)) {
          merged.add(entry);
        }
      }
    }
    int fromReplica = merged.size();
    if (fromReplica == 0 && !repeats) {
      merged = sourceLog;
    } else if (repeats) {
      EntrySet added = new EntrySet(sourceLog.size());
      for (SnapshotLogEntry entry : sourceLog) {
        if (added.add(entry)) {
          merged.add(entry);
        }
      }
    } else {
      merged.addAll(sourceLog);
    }

    int firstKept = 0;
    for (int i = 0; i < merged.size(); i++) {
      if (!heldSnapshotIds.contains(merged.get(i).snapshotId())) {
        firstKept = i + 1;
      }
    }
    return firstKept == 0 ? merged : merged.subList(firstKept, merged.size());
  }

  /**
   * A set of log entries by (timestamp, id) in two primitive arrays (open addressing, at most three
   * quarters full): a hash set of entry objects costs about 40 bytes an entry beside the entries.
   */
  private static final class EntrySet {
    private long[] timestamps;
    private long[] ids;
    private boolean[] used;
    private int size;

    EntrySet(int expected) {
      int capacity = 16;
      while (capacity / 4 * 3 < expected) {
        capacity *= 2;
      }
      allocate(capacity);
    }

    boolean contains(SnapshotLogEntry entry) {
      return used[slot(entry.timestampMs(), entry.snapshotId())];
    }

    /** Adds the entry; false when it was there. */
    boolean add(SnapshotLogEntry entry) {
      int slot = slot(entry.timestampMs(), entry.snapshotId());
      if (used[slot]) {
        return false;
      }
      put(slot, entry.timestampMs(), entry.snapshotId());
      if (++size > used.length / 4 * 3) {
        grow();
      }
      return true;
    }

    private int slot(long timestampMs, long snapshotId) {
      int mask = used.length - 1;
      long hash = (timestampMs * 31 + snapshotId) * 0x9E3779B97F4A7C15L;
      int slot = (int) (hash ^ (hash >>> 32)) & mask;
      while (used[slot] && (timestamps[slot] != timestampMs || ids[slot] != snapshotId)) {
        slot = (slot + 1) & mask;
      }
      return slot;
    }

    private void put(int slot, long timestampMs, long snapshotId) {
      used[slot] = true;
      timestamps[slot] = timestampMs;
      ids[slot] = snapshotId;
    }

    private void grow() {
      long[] oldTimestamps = timestamps;
      long[] oldIds = ids;
      boolean[] oldUsed = used;
      allocate(oldUsed.length * 2);
      for (int i = 0; i < oldUsed.length; i++) {
        if (oldUsed[i]) {
          put(slot(oldTimestamps[i], oldIds[i]), oldTimestamps[i], oldIds[i]);
        }
      }
    }

    private void allocate(int capacity) {
      timestamps = new long[capacity];
      ids = new long[capacity];
      used = new boolean[capacity];
    }
  }
}
