package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replicator's contract: every source version becomes one replica commit that Iceberg reads as
 * the source at every snapshot; a dry run counts what the run then does and writes nothing; a run
 * with nothing new writes nothing.
 */
class TableReplicatorTest {
  private static final ReplicationOptions OPTIONS =
      new ReplicationOptions(
          List.of(), false, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES, 4, Duration.ZERO);

  private static ExecutorService executor;

  @TempDir Path dir;

  /** The source's first data file, whose rows a later commit deletes. */
  private DataFile first;

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  private static TableReplicator replicator() {
    LocalObjectStore local = new LocalObjectStore();
    return TableReplicator.builder(local, local, executor, OPTIONS).build();
  }

  /** A source table with one commit, replicated by a backfill as one version. */
  private SourceTable source() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    first = source.append("a", 4);
    return source;
  }

  @Test
  void everySourceVersionBecomesOneReplicaCommitReadAsTheSourceAtEverySnapshot() {
    SourceTable source = source();
    String replica = dir.resolve("replica").toUri().toString();
    TableReplicator replicator = replicator();
    assertThat(replicator.replicate(source.location, replica, Optional.empty()).versionsApplied())
        .isEqualTo(1);
    source.append("b", 3);
    source.deletePositions(first, 0, 2);

    ReplicationSummary summary = replicator.replicate(source.location, replica, Optional.empty());

    Table read = SourceTable.TABLES.load(replica);
    source.table.refresh();
    assertThat(summary.versionsApplied()).isEqualTo(2);
    assertThat(summary.replicaMetadataFiles()).hasSize(2);
    assertThat(summary.snapshotsAdded()).isEqualTo(2);
    assertThat(summary.skippedVersions()).isEmpty();
    assertThat(read.location()).isNotEqualTo(source.table.location());
    assertThat(read.currentSnapshot().snapshotId())
        .isEqualTo(source.table.currentSnapshot().snapshotId());
    List<Snapshot> snapshots = snapshotsOf(source.table);
    assertThat(snapshots).hasSize(3);
    for (Snapshot snapshot : snapshots) {
      assertThat(SourceTable.rows(read, snapshot.snapshotId()))
          .as("rows at snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()))
          .isNotEmpty();
    }
    assertThat(read.newScan().planFiles())
        .allSatisfy(task -> assertThat(task.file().location()).startsWith(replica));
  }

  @Test
  void aDryRunWritesNothingAndCountsWhatTheRunThenDoes() throws IOException {
    SourceTable source = source();
    Path replicaDir = dir.resolve("replica");
    String replica = replicaDir.toUri().toString();
    TableReplicator replicator = replicator();
    Map<String, String> sourceBefore = files(dir.resolve("source"));

    ReplicationSummary planned = replicator.dryRun(source.location, replica, Optional.empty());

    assertThat(replicaDir).doesNotExist();
    assertThat(files(dir.resolve("source"))).isEqualTo(sourceBefore);
    ReplicationSummary done = replicator.replicate(source.location, replica, Optional.empty());
    assertThat(planned.versionsApplied()).isEqualTo(done.versionsApplied()).isEqualTo(1);
    assertThat(planned.snapshotsAdded()).isEqualTo(done.snapshotsAdded());
    assertThat(planned.filesCopied()).isEqualTo(done.filesCopied()).isPositive();
    assertThat(planned.bytesCopied()).isEqualTo(done.bytesCopied()).isPositive();
    assertThat(planned.filesRewritten()).isEqualTo(done.filesRewritten()).isPositive();
    assertThat(planned.replicaMetadataFiles()).isEqualTo(done.replicaMetadataFiles());

    // onto an existing replica, the dry run plans only the new versions, as the run then applies
    source.append("b", 2);
    source.deletePositions(first, 1);
    Map<String, String> replicaBefore = files(replicaDir);
    ReplicationSummary next = replicator.dryRun(source.location, replica, Optional.empty());
    assertThat(files(replicaDir)).isEqualTo(replicaBefore);
    ReplicationSummary applied = replicator.replicate(source.location, replica, Optional.empty());
    assertThat(next.versionsApplied()).isEqualTo(applied.versionsApplied()).isEqualTo(2);
    assertThat(next.snapshotsAdded()).isEqualTo(applied.snapshotsAdded()).isEqualTo(2);
    assertThat(next.filesCopied()).isEqualTo(applied.filesCopied());
    assertThat(next.bytesCopied()).isEqualTo(applied.bytesCopied());
    assertThat(next.filesRewritten()).isEqualTo(applied.filesRewritten());
    assertThat(next.replicaMetadataFiles()).isEqualTo(applied.replicaMetadataFiles());
  }

  @Test
  void aRunWithNothingNewWritesNothing() throws IOException {
    SourceTable source = source();
    Path replicaDir = dir.resolve("replica");
    String replica = replicaDir.toUri().toString();
    TableReplicator replicator = replicator();
    replicator.replicate(source.location, replica, Optional.empty());
    Map<String, String> before = files(replicaDir);

    ReplicationSummary again = replicator.replicate(source.location, replica, Optional.empty());

    assertThat(again.versionsApplied()).isZero();
    assertThat(again.filesCopied()).isZero();
    assertThat(again.replicaMetadataFiles()).isEmpty();
    // a run takes the lease, whose fencing epoch its state records; it writes nothing else
    assertThat(withoutState(files(replicaDir))).isEqualTo(withoutState(before));

    Map<String, String> checkedBefore = files(replicaDir);
    ReplicationResult checked = replicator.replicateIfChanged(source.location, replica);

    assertThat(checked.summary()).isEqualTo(ReplicationSummary.none());
    assertThat(checked.heads().inSync()).isTrue();
    // the check that finds the replica current takes no lease and writes nothing at all
    assertThat(files(replicaDir)).isEqualTo(checkedBefore);
  }

  private static Map<String, String> withoutState(Map<String, String> files) {
    Map<String, String> others = new TreeMap<>(files);
    assertThat(others.remove("metadata/.replicator-state.json")).isNotNull();
    return others;
  }

  private static List<Snapshot> snapshotsOf(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    return snapshots;
  }

  /**
   * Every file under {@code root}, with its last-modified time and size: what a write would change.
   */
  private static Map<String, String> files(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      Map<String, String> files = new TreeMap<>();
      walk.filter(Files::isRegularFile)
          .forEach(
              p -> {
                try {
                  files.put(
                      root.relativize(p).toString(),
                      Files.getLastModifiedTime(p).toMillis() + "/" + Files.size(p));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      return files;
    }
  }
}
