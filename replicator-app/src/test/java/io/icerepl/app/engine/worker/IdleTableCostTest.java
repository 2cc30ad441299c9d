package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.service.status.ReplicationState;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.fixtures.RecordingStore;
import io.icerepl.fixtures.ShiftableClock;
import io.icerepl.merge.state.GroupMembership;
import io.icerepl.merge.state.KnownCurrent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reconciliation pass triggers every table: one whose replica already holds the source's current
 * version must cost reads only, no lease and no write, while a changed one replicates.
 */
class IdleTableCostTest {
  @TempDir Path dir;

  private static final String LEASE = "lock";
  private static final String WRITE = "write";
  private static final String REPLACE = "replaceIf";
  private static final String CREATE = "createIfAbsent";
  private static final String COPY = "copyFrom";
  private static final String DELETE = "delete";
  private static final String DELETE_ALL = "deleteAll";

  private final RecordingStore source = new RecordingStore();
  private final RecordingStore target = new RecordingStore();
  private final StatusBoard board = new StatusBoard(Clock.systemUTC(), new SimpleMeterRegistry());

  @Test
  void anInSyncTableTakesNoLeaseAndWritesNothingWhileAChangedOneReplicates() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 2);
    String replica = dir.resolve("replica").toUri().toString();
    TableKey key = new TableKey("rule", "target", "ns/t", source.location, replica);
    try (TableRunner runner = runner()) {
      runner.replicate(key);
      assertThat(target.count(LEASE)).isEqualTo(1);

      target.reset();
      runner.replicate(key);
      runner.replicate(key);

      assertThat(target.started(LEASE, WRITE, REPLACE, CREATE, COPY, DELETE, DELETE_ALL)).isEmpty();
      assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);

      source.append("c", 4);
      runner.replicate(key);

      assertThat(target.count(LEASE)).isEqualTo(1);
      assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
      source.table.refresh();
      Table read = SourceTable.TABLES.load(replica);
      for (Snapshot snapshot : source.table.snapshots()) {
        assertThat(SourceTable.rows(read, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
      }
    }
  }

  /**
   * The run of a changed table reuses what its in-sync check read, and the status reuses what the
   * run read and published: the source head is read once per pass, and the replica version the
   * previous run published is not read again while it is still the replica's head.
   */
  @Test
  void aChangedTableReadsTheSourceMetadataOnceAndTheReplicaVersionItPublishedNever()
      throws IOException {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    TableKey key = new TableKey("rule", "target", "ns/t", table.location, replica);
    try (TableRunner runner = runner()) {
      runner.replicate(key);
      String replicaHead = board.get(key).orElseThrow().replicaMetadataFile();
      table.append("b", 2);
      table.table.refresh();
      String sourceHead =
          ((HasTableOperations) table.table).operations().current().metadataFileLocation();
      source.reset();
      target.reset();

      runner.replicate(key);

      assertThat(metadataReads(source)).containsOnlyKeys(URI.create(sourceHead).getPath());
      assertThat(metadataReads(source).values()).containsOnly(1);
      assertThat(metadataReads(target)).doesNotContainKey(URI.create(replicaHead).getPath());
      assertThat(metadataReads(target)).isEmpty();
      assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
      Table read = SourceTable.TABLES.load(replica);
      for (Snapshot snapshot : table.table.snapshots()) {
        assertThat(SourceTable.rows(read, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(table.table, snapshot.snapshotId()));
      }
    }
  }

  /**
   * The replicator's state file is read once by the check whether the replica holds the source
   * head, and once more under the lease by the run that replicates, which then keeps it as it
   * writes it: never re-read per step.
   */
  @Test
  void eachRunReadsTheStateFileOnceWithoutTheLeaseAndOnceUnderIt() throws IOException {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    String state = URI.create(ReplicaLayout.stateFile(replica)).getPath();
    TableKey key = new TableKey("rule", "target", "ns/t", table.location, replica);
    try (TableRunner runner = runner()) {
      runner.replicate(key);
      target.reset();

      runner.replicate(key);

      assertThat(reads(target, state)).isEqualTo(1);
      assertThat(target.started(LEASE, WRITE, REPLACE)).isEmpty();

      table.append("b", 2);
      target.reset();
      runner.replicate(key);

      assertThat(target.count(LEASE)).isEqualTo(1);
      assertThat(reads(target, state)).isEqualTo(2);
      assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
      Table read = SourceTable.TABLES.load(replica);
      table.table.refresh();
      for (Snapshot snapshot : table.table.snapshots()) {
        assertThat(SourceTable.rows(read, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(table.table, snapshot.snapshotId()));
      }
    }
  }

  /**
   * A replica removed and written again under the same version names (by another replicator, from
   * scratch) is judged by its files, not by what a run of this one published there before: no false
   * divergence.
   */
  @Test
  void aReplicaRewrittenUnderTheSameNamesIsReadAgainNotTakenForDiverged() throws IOException {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    TableKey key = new TableKey("rule", "target", "ns/t", table.location, replica);
    try (TableRunner runner = runner()) {
      runner.replicate(key);
      deleteRecursively(dir.resolve("replica"));
      try (TableRunner other = runner()) {
        other.replicate(key); // v1 again, with its own commit token
      }
      table.append("b", 2);

      runner.replicate(key);

      assertThat(board.get(key).orElseThrow().state()).isEqualTo(ReplicationState.IN_SYNC);
      Table read = SourceTable.TABLES.load(replica);
      table.table.refresh();
      for (Snapshot snapshot : table.table.snapshots()) {
        assertThat(SourceTable.rows(read, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(table.table, snapshot.snapshotId()));
      }
    }
  }

  /**
   * A group's member found current records it in its replica's state only once its record is as old
   * as the group's known-current-interval: a check in between costs reads only, and the record is
   * one lease and one state write. The requests of each are printed: docs/groups.md prices them.
   */
  @Test
  void aGroupMemberFoundCurrentRecordsItOncePerInterval() throws IOException {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    TableKey key = new TableKey("rule", "target", "ns/t", table.location, replica);
    ShiftableClock clock = new ShiftableClock();
    KnownCurrent member =
        KnownCurrent.member(
            Duration.ofSeconds(5),
            new GroupMembership(
                "sales", "sales", List.of(replica), Duration.ofSeconds(1), Duration.ZERO));
    try (TableRunner runner = runner(clock, k -> member)) {
      runner.replicate(key);
      long recorded = knownCurrentFrom(replica);
      source.reset();
      target.reset();

      clock.advance(Duration.ofSeconds(2));
      runner.replicate(key);

      assertThat(target.started(LEASE, WRITE, REPLACE, DELETE, DELETE_ALL)).isEmpty();
      assertThat(knownCurrentFrom(replica)).isEqualTo(recorded);
      System.out.printf(
          "an idle member's check, no record due: source %s, replica %s%n",
          requests(source), requests(target));
      source.reset();
      target.reset();

      clock.advance(Duration.ofSeconds(4));
      long checkedFrom = clock.millis();
      runner.replicate(key);
      long checkedBy = clock.millis();

      assertThat(target.count(LEASE)).isEqualTo(1);
      assertThat(target.count(WRITE, REPLACE)).as("the state, written once").isEqualTo(1);
      assertThat(knownCurrentFrom(replica))
          .as("the time the check began")
          .isBetween(checkedFrom, checkedBy);
      System.out.printf(
          "an idle member's check with its record: source %s, replica %s%n",
          requests(source), requests(target));
    }
  }

  private long knownCurrentFrom(String replica) throws IOException {
    return new io.icerepl.app.engine.replica.ReplicaFiles(new LocalObjectStore(), 64L << 20)
        .state(replica)
        .knownCurrentFromMs();
  }

  private static void deleteRecursively(Path path) throws IOException {
    try (var files = java.nio.file.Files.walk(path)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(file);
      }
    }
  }

  private TableRunner runner() {
    return runner(Clock.systemUTC(), key -> KnownCurrent.ON_COMMIT);
  }

  private TableRunner runner(
      Clock clock, java.util.function.Function<TableKey, KnownCurrent> known) {
    return new TableRunner(
        LocalContexts.builder(source, target, clock, board)
            .groups(
                new TableContext.GroupRefs() {
                  @Override
                  public Optional<String> refOf(TableKey key) {
                    return Optional.empty();
                  }

                  @Override
                  public KnownCurrent knownCurrentOf(TableKey key) {
                    return known.apply(key);
                  }
                })
            .build());
  }

  /** Every request since the last reset, by kind: LIST, GET (reads), lease, PUT, DELETE. */
  private static Map<String, Integer> requests(RecordingStore store) {
    Map<String, Integer> requests = new TreeMap<>();
    requests.put("LIST", store.count("list", "listEntries"));
    requests.put("GET", store.count("open", "readVersioned"));
    requests.put("lease", store.count(LEASE));
    requests.put("PUT", store.count(WRITE, REPLACE, CREATE, COPY));
    requests.put("DELETE", store.count(DELETE, DELETE_ALL));
    return requests;
  }

  /** Reads of the file at {@code path} since the last reset, a small versioned read too. */
  private static int reads(RecordingStore store, String path) {
    return (int)
        store.paths("open", "readVersioned").stream()
            .filter(read -> URI.create(read).getPath().equals(path))
            .count();
  }

  /** Reads of each metadata file since the last reset, by its path. */
  private static Map<String, Integer> metadataReads(RecordingStore store) {
    Map<String, Integer> reads = new HashMap<>();
    for (String read : store.paths("open")) {
      if (read.endsWith(".metadata.json")) {
        reads.merge(URI.create(read).getPath(), 1, Integer::sum);
      }
    }
    return reads;
  }
}
