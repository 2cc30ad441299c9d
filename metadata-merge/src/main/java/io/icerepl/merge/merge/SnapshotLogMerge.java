package io.icerepl.merge.merge;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadata.SnapshotLogEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
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

  static List<SnapshotLogEntry> merge(
      TableMetadata replica, TableMetadata source, Set<Long> heldSnapshotIds, Set<Long> keptOnly) {
    List<SnapshotLogEntry> sourceLog = source.snapshotLog();
    Set<SnapshotLogEntry> inSource = new HashSet<>(sourceLog);
    LinkedHashSet<SnapshotLogEntry> merged = new LinkedHashSet<>();
    if (replica != null) {
      for (SnapshotLogEntry entry : replica.snapshotLog()) {
        if (!inSource.contains(entry) && !keptOnly.contains(entry.snapshotId())) {
          merged.add(entry);
        }
      }
    }
    merged.addAll(sourceLog);

    List<SnapshotLogEntry> entries = new ArrayList<>(merged);
    int firstKept = 0;
    for (int i = 0; i < entries.size(); i++) {
      if (!heldSnapshotIds.contains(entries.get(i).snapshotId())) {
        firstKept = i + 1;
      }
    }
    return entries.subList(firstKept, entries.size());
  }
}
