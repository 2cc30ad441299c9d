package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.LocalObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replicator that falls behind the source's own retention (intermediate versions' manifest lists
 * already deleted) applies the newest version it can complete, keeps everything it replicated
 * before, and reports the snapshots it could not keep.
 */
class FallingBehindSourceRetentionTest {
  @TempDir Path dir;

  @Test
  void versionsWhoseFilesTheSourceDeletedAreFoldedAndTheirSnapshotsReported() throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 2);
    source.append("b", 2);
    String replica = dir.resolve("replica").toUri().toString();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      LocalObjectStore store = new LocalObjectStore();
      TableReplicator replicator =
          TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
              .clock(Clock.systemUTC())
              .build();
      replicator.replicate(source.location, replica, Optional.empty());
      Map<Long, List<String>> replicated = rowsBySnapshot(source.table);

      source.append("a", 1);
      source.append("c", 1);
      source.table.refresh();
      Set<Long> missed = new HashSet<>();
      for (Snapshot s : source.table.snapshots()) {
        if (!replicated.containsKey(s.snapshotId())) {
          missed.add(s.snapshotId());
        }
      }
      long current = source.table.currentSnapshot().snapshotId();
      missed.remove(current);
      Thread.sleep(5);
      source
          .table
          .expireSnapshots()
          .expireOlderThan(System.currentTimeMillis())
          .retainLast(1)
          .commit();

      ReplicationSummary summary = replicator.replicate(source.location, replica, Optional.empty());

      assertThat(summary.lostSnapshots()).containsExactlyInAnyOrderElementsOf(missed);
      assertThat(summary.skippedVersions()).isNotEmpty();
      Table replicaTable = SourceTable.TABLES.load(replica);
      assertThat(replicaTable.currentSnapshot().snapshotId()).isEqualTo(current);
      assertThat(SourceTable.rows(replicaTable, current))
          .isEqualTo(SourceTable.rows(source.table, current));
      for (Map.Entry<Long, List<String>> e : replicated.entrySet()) {
        assertThat(SourceTable.rows(replicaTable, e.getKey()))
            .as("snapshot %s, replicated before the source expired it", e.getKey())
            .isEqualTo(e.getValue());
      }
    } finally {
      executor.shutdownNow();
    }
  }

  private static Map<Long, List<String>> rowsBySnapshot(Table table) {
    Map<Long, List<String>> rows = new java.util.HashMap<>();
    table.refresh();
    for (Snapshot s : table.snapshots()) {
      rows.put(s.snapshotId(), SourceTable.rows(table, s.snapshotId()));
    }
    return rows;
  }
}
