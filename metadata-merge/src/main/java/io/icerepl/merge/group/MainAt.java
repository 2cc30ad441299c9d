package io.icerepl.merge.group;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The snapshot a table's {@code main} branch named at a moment, as a reader of the table saw it
 * then. The table's {@code snapshot-log} records each change of its current snapshot with the time
 * of the change (spec: "each time the current-snapshot-id is changed, a new entry should be added
 * with the last-updated-ms"), so it also answers for rollbacks; where the log has been cut short
 * (its older entries expired), the newest ancestor of the current snapshot committed by then.
 */
public final class MainAt {
  private MainAt() {}

  /** {@code main}'s snapshot at {@code atMs}; empty when the table had none then. */
  public static OptionalLong snapshotAt(TableMetadata metadata, long atMs) {
    List<TableMetadata.SnapshotLogEntry> log = metadata.snapshotLog();
    boolean logCovers = !log.isEmpty() && log.get(0).timestampMs() <= atMs;
    if (logCovers) {
      for (int i = log.size() - 1; i >= 0; i--) {
        TableMetadata.SnapshotLogEntry entry = log.get(i);
        if (entry.timestampMs() <= atMs) {
          if (metadata.snapshot(entry.snapshotId()).isPresent()) {
            return OptionalLong.of(entry.snapshotId());
          }
          break; // that snapshot was expired since: what it descended from answers below
        }
      }
    }
    return newestAncestorBy(metadata, atMs);
  }

  private static OptionalLong newestAncestorBy(TableMetadata metadata, long atMs) {
    Optional<Long> current = metadata.currentSnapshotId();
    if (current.isEmpty()) {
      return OptionalLong.empty();
    }
    for (Snapshot snapshot : metadata.graph().ancestors(current.get())) {
      if (snapshot.timestampMs() <= atMs) {
        return OptionalLong.of(snapshot.snapshotId());
      }
    }
    return OptionalLong.empty(); // the chain ends at an expired parent, or at the first commit
  }
}
