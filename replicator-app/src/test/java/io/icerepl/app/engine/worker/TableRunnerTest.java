package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.head.MetadataListing;
import io.icerepl.app.service.status.ReplicationState;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.path.TableLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lane's run of one table, read back with Iceberg: what it tells the board, when a reconciliation
 * pass may skip the table (its listings as the last in-sync run left them), and where a replica the
 * service has not seen yet stands before its first run.
 */
class TableRunnerTest {
  @TempDir Path dir;

  private final ObjectStore store = new LocalObjectStore();

  @Test
  void aRunReplicatesEverySnapshotAndTellsTheBoardTheReplicaIsInSync() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 2);
    TableKey key = key(source);
    StatusBoard board = board();
    try (TableRunner runner = runner(board)) {
      assertThat(runner.replicate(key)).isEmpty();

      assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
      source.table.refresh();
      Table read = SourceTable.TABLES.load(key.targetLocation());
      assertThat(read.snapshots()).hasSameSizeAs(source.table.snapshots());
      for (Snapshot snapshot : source.table.snapshots()) {
        assertThat(SourceTable.rows(read, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
      }
    }
  }

  @Test
  void aTableIsUnchangedWhileBothFoldersListAsTheLastInSyncRunLeftThem() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    TableKey key = key(source);
    try (TableRunner runner = runner(board())) {
      assertThat(runner.unchangedSince(key, sourceListing(source))).as("before any run").isFalse();
      runner.replicate(key);

      assertThat(runner.unchangedSince(key, sourceListing(source))).isTrue();

      source.append("b", 2);
      assertThat(runner.unchangedSince(key, sourceListing(source)))
          .as("the source committed since")
          .isFalse();
      runner.replicate(key);
      MetadataListing listed = sourceListing(source);
      assertThat(runner.unchangedSince(key, listed)).isTrue();

      // a file written into the replica's metadata folder behind the replicator's back
      Files.writeString(
          Path.of(URI.create(TableLayout.metadataFolder(key.targetLocation())))
              .resolve("v99.metadata.json"),
          "{}");
      assertThat(runner.unchangedSince(key, listed)).as("the replica changed since").isFalse();
    }
  }

  @Test
  void aFailedRunForgetsThatTheTableWasInSync() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    TableKey key = key(source);
    try (TableRunner runner = runner(board())) {
      runner.replicate(key);
      MetadataListing listed = sourceListing(source);
      assertThat(runner.unchangedSince(key, listed)).isTrue();

      // the source's next version is damaged: the next run fails on it
      source.append("b", 2);
      Path newest;
      try (Stream<Path> files =
          Files.list(Path.of(URI.create(TableLayout.metadataFolder(source.location))))) {
        newest =
            files
                .filter(f -> f.getFileName().toString().matches("v\\d+\\.metadata\\.json"))
                .max(Comparator.comparingInt(TableRunnerTest::version))
                .orElseThrow();
      }
      Files.writeString(newest, "not json");
      assertThatThrownBy(() -> runner.replicate(key)).isInstanceOf(RuntimeException.class);

      assertThat(runner.unchangedSince(key, listed)).isFalse();
    }
  }

  @Test
  void aReplicaNotSeenYetIsRestoredToTheBoardWithoutARun() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    TableKey key = key(source);
    try (TableRunner first = runner(board())) {
      first.replicate(key);
    }
    source.append("b", 2);
    StatusBoard board = board();
    try (TableRunner restarted = runner(board)) {
      assertThat(board.known(key)).isFalse();

      restarted.restore(key);

      assertThat(board.known(key)).isTrue();
      assertThat(board.get(key).orElseThrow().state()).isNotEqualTo(ReplicationState.IN_SYNC);
      assertThat(board.get(key).orElseThrow().lagSnapshots()).isEqualTo(1);
      assertThat(restarted.unchangedSince(key, sourceListing(source)))
          .as("the replica lacks the source's head")
          .isFalse();
    }
  }

  /** N of a Hadoop table's {@code vN.metadata.json}. */
  private static int version(Path file) {
    String name = file.getFileName().toString();
    return Integer.parseInt(name.substring(1, name.indexOf('.')));
  }

  private TableKey key(SourceTable source) {
    return new TableKey(
        "rule", "target", "ns/t", source.location, dir.resolve("replica").toUri().toString());
  }

  private MetadataListing sourceListing(SourceTable source) throws IOException {
    return MetadataListing.of(store.listEntries(TableLayout.metadataFolder(source.location)));
  }

  private static StatusBoard board() {
    return new StatusBoard(Clock.systemUTC(), new SimpleMeterRegistry());
  }

  private TableRunner runner(StatusBoard board) {
    return new TableRunner(LocalContexts.builder(store, store, Clock.systemUTC(), board).build());
  }
}
