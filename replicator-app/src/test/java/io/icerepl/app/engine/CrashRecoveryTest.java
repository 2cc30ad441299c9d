package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A crash at each phase of a replica commit leaves the previous replica state readable, and a rerun
 * converges to what an uninterrupted run produces.
 */
class CrashRecoveryTest {
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

  enum Phase {
    DATA_FILE(p -> p.endsWith(".parquet") && !p.contains("deletes")),
    POSITION_DELETE_FILE(p -> p.endsWith("-deletes.parquet")),
    MANIFEST(p -> p.matches(".*/metadata/[^/]*-m\\d+\\.avro")),
    MANIFEST_LIST(p -> p.matches(".*/metadata/snap-[^/]*\\.avro")),
    METADATA_FILE(p -> p.endsWith(".metadata.json")),
    VERSION_HINT(p -> p.endsWith("version-hint.text"));

    final Predicate<String> matches;

    Phase(Predicate<String> matches) {
      this.matches = matches;
    }
  }

  private static ReplicationSummary replicate(ObjectStore target, String source, String replica) {
    return TableReplicator.builder(
            new LocalObjectStore(), target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build()
        .replicate(source, replica, Optional.empty());
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void crashAtEachPhaseLeavesAReadableReplicaAndARerunConverges(Phase phase) throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    DataFile first = source.append("a", 4);
    source.append("b", 3);
    String crashed = dir.resolve("crashed").toUri().toString();
    String clean = dir.resolve("clean").toUri().toString();
    LocalObjectStore local = new LocalObjectStore();
    replicate(local, source.location, crashed);
    replicate(local, source.location, clean);
    long before = SourceTable.TABLES.load(crashed).currentSnapshot().snapshotId();

    source.append("a", 2);
    source.deletePositions(first, 1, 3);

    FaultInjectingStore faulty = new FaultInjectingStore(phase.matches);
    assertThatThrownBy(() -> replicate(faulty, source.location, crashed))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining("injected crash");
    assertThat(faulty.crashed()).isTrue();

    Table afterCrash = SourceTable.TABLES.load(crashed);
    Snapshot current = afterCrash.currentSnapshot();
    if (phase == Phase.VERSION_HINT) {
      // the metadata file was published: readers look past the hint and see the new version
      assertThat(current.snapshotId()).isNotEqualTo(before);
    }
    for (Snapshot snapshot : afterCrash.snapshots()) {
      assertThat(SourceTable.rows(afterCrash, snapshot.snapshotId()))
          .as("snapshot %s after a crash at %s", snapshot.snapshotId(), phase)
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
    }

    replicate(local, source.location, crashed);
    replicate(local, source.location, clean);

    Table recovered = SourceTable.TABLES.load(crashed);
    Table uninterrupted = SourceTable.TABLES.load(clean);
    source.table.refresh();
    assertThat(recovered.currentSnapshot().snapshotId())
        .isEqualTo(source.table.currentSnapshot().snapshotId());
    for (Snapshot snapshot : source.table.snapshots()) {
      assertThat(SourceTable.rows(recovered, snapshot.snapshotId()))
          .as("snapshot %s after the rerun", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
    }
    assertThat(tableFiles(dir.resolve("crashed"))).isEqualTo(tableFiles(dir.resolve("clean")));
    assertThat(Files.readString(dir.resolve("crashed/metadata/version-hint.text")))
        .isEqualTo(Files.readString(dir.resolve("clean/metadata/version-hint.text")));
  }

  /** Relative paths of the files a table holds, without temporaries. */
  private static TreeSet<String> tableFiles(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      TreeSet<String> files = new TreeSet<>();
      walk.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).forEach(files::add);
      return files;
    }
  }
}
