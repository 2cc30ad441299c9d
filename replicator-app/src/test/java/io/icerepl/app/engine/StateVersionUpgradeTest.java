package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.state.ReplicaStateParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica whose state an older or a newer release wrote: one of state-version 1 without a fencing
 * epoch (as every release before epochs wrote it, byte for byte: see {@code StateVersionOneTest})
 * goes on replicating; one of a newer state version is refused, naming both versions, and nothing
 * of the replica is touched.
 */
class StateVersionUpgradeTest {
  private static ExecutorService executor;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  @Test
  void aReplicaWhoseStateAnEarlierReleaseWroteGoesOn() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    replicate(source.location, replica);
    Path stateFile = Path.of(java.net.URI.create(ReplicaLayout.stateFile(replica)));
    byte[] asBefore =
        ReplicaStateParser.toJson(ReplicaStateParser.fromJson(Files.readAllBytes(stateFile), "s"));
    Files.write(stateFile, asBefore);
    assertThat(new String(asBefore, StandardCharsets.UTF_8))
        .contains("\"state-version\" : 1,")
        .doesNotContain("fencing-epoch");

    source.append("b", 2);
    replicate(source.location, replica);

    Table replicated = SourceTable.TABLES.load(replica);
    source.table.refresh();
    assertThat(replicated.currentSnapshot().snapshotId())
        .isEqualTo(source.table.currentSnapshot().snapshotId());
    for (Snapshot snapshot : source.table.snapshots()) {
      assertThat(SourceTable.rows(replicated, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
    }
    // the epoch of the run's lock: the table's second holding, above the absent (0) one
    assertThat(ReplicaStateParser.readFenced(Files.readAllBytes(stateFile), "s").fencingEpoch())
        .isEqualTo(2);
  }

  @Test
  void aReplicaWhoseStateANewerReleaseWroteIsRefusedAndLeftAsItIs() throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    replicate(source.location, replica);
    Path stateFile = Path.of(java.net.URI.create(ReplicaLayout.stateFile(replica)));
    String state = Files.readString(stateFile);
    Files.writeString(stateFile, state.replace("\"state-version\" : 1,", "\"state-version\" : 2,"));
    Map<String, String> before = contents(dir.resolve("replica"));
    source.append("b", 2);

    assertThatThrownBy(() -> replicate(source.location, replica))
        .isInstanceOf(TableReplicationException.class)
        .hasCauseInstanceOf(BadInputException.class)
        .hasMessageContaining(
            "Cannot read replica state "
                + ReplicaLayout.stateFile(replica)
                + ": it is state-version 2, written by a newer release,"
                + " and this release reads state-version 1 at most");

    assertThat(contents(dir.resolve("replica"))).isEqualTo(before);
  }

  private static void replicate(String source, String replica) {
    TableReplicator.builder(
            new LocalObjectStore(), new LocalObjectStore(), executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build()
        .replicate(source, replica, Optional.empty());
  }

  /** Every file under {@code root} by its path, with its bytes as text. */
  private static Map<String, String> contents(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            root.relativize(p).toString(),
            java.util.HexFormat.of().formatHex(Files.readAllBytes(p)));
      }
    }
    return files;
  }
}
