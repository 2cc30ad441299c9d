package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.retention.RetentionSettings;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.retention.ExpireOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules that are easy to get silently wrong, each shown through the Iceberg library. */
class SubtleRulesTest {
  @TempDir Path dir;

  private ExecutorService executor;
  private TableReplicator replicator;
  private String replica;

  @BeforeEach
  void setUp() {
    executor = Executors.newFixedThreadPool(2);
    LocalObjectStore store = new LocalObjectStore();
    replicator =
        TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
            .clock(Clock.systemUTC())
            .build();
    replica = dir.resolve("replica").toUri().toString();
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
  }

  private void replicate(SourceTable source) {
    replicator.replicate(source.location, replica, Optional.empty());
  }

  @Test
  void aPositionDeleteScopedToOneDataFileStillDeletesOnTheReplica() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    DataFile data = source.append("a", 5);
    source.deletePositions(data, 1, 3);
    replicate(source);

    Table table = SourceTable.TABLES.load(replica);
    DeleteFile delete = onlyDeleteFile(table);
    String replicaDataPath = onlyDataFile(table).location();
    ByteBuffer lower = delete.lowerBounds().get(MetadataColumns.DELETE_FILE_PATH.fieldId());
    ByteBuffer upper = delete.upperBounds().get(MetadataColumns.DELETE_FILE_PATH.fieldId());
    assertThat(StandardCharsets.UTF_8.decode(lower.duplicate()).toString())
        .isEqualTo(replicaDataPath);
    assertThat(StandardCharsets.UTF_8.decode(upper.duplicate()).toString())
        .isEqualTo(replicaDataPath);
    assertThat(delete.fileSizeInBytes()).isEqualTo(sizeOf(delete.location()));
    assertThat(SourceTable.rows(table, table.currentSnapshot().snapshotId()))
        .hasSize(3)
        .isEqualTo(SourceTable.rows(source.table, source.table.currentSnapshot().snapshotId()));
  }

  @Test
  void aManifestReusedByLaterSnapshotsCarriesTheReplicasLength() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    replicate(source);
    source.append("b", 2);
    source.append("c", 2);
    replicate(source);

    Table table = SourceTable.TABLES.load(replica);
    int checked = 0;
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        assertThat(manifest.length())
            .as(
                "manifest_length of %s in the list of snapshot %s",
                manifest.path(), snapshot.snapshotId())
            .isEqualTo(sizeOf(manifest.path()));
        checked++;
      }
    }
    // the first manifest is named by all three manifest lists, two of them written later
    assertThat(checked).isEqualTo(1 + 2 + 3);
  }

  @Test
  void aReplicaOnlyCommitFollowedByAReplicationStillParses() throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    long first = source.table.currentSnapshot().snapshotId();
    source.append("b", 1);
    replicate(source);

    // a commit only the replica has: its own retention expires the first snapshot
    RetentionResult expiry =
        new RetentionRunner(new LocalObjectStore(), Clock.systemUTC(), RetentionSettings.defaults())
            .expire(
                replica,
                Optional.empty(),
                UnaryOperator.identity(),
                new ExpireOptions(
                    Optional.empty(), Optional.of(0L), Optional.of(1), Set.of(), false));
    assertThat(expiry.expiredSnapshotIds()).containsExactly(first);

    source.append("c", 2);
    replicate(source);

    Path metadata = dir.resolve("replica/metadata");
    Table table = SourceTable.TABLES.load(replica);
    TableMetadata current =
        org.apache.iceberg.TableMetadataParser.read(
            table.io(), metadata.resolve("v3.metadata.json").toString());
    assertThat(current.previousFiles())
        .extracting(e -> Path.of(java.net.URI.create(e.file())).getFileName().toString())
        .containsExactly("v1.metadata.json", "v2.metadata.json");
    assertThat(table.snapshot(first)).as("expired on the replica, not brought back").isNull();
    source.table.refresh();
    for (Snapshot snapshot : source.table.snapshots()) {
      if (snapshot.snapshotId() != first) {
        assertThat(SourceTable.rows(table, snapshot.snapshotId()))
            .isEqualTo(SourceTable.rows(source.table, snapshot.snapshotId()));
      }
    }
  }

  private static DeleteFile onlyDeleteFile(Table table) {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      List<DeleteFile> deletes = new java.util.ArrayList<>();
      tasks.forEach(t -> deletes.addAll(t.deletes()));
      assertThat(deletes).hasSize(1);
      return deletes.get(0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static DataFile onlyDataFile(Table table) {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      List<DataFile> files = new java.util.ArrayList<>();
      tasks.forEach(t -> files.add(t.file()));
      assertThat(files).hasSize(1);
      return files.get(0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static long sizeOf(String location) {
    try {
      return Files.size(LocalObjectStore.toPath(location));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
