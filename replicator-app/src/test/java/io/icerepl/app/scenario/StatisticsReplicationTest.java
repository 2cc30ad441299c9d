package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.retention.RetentionSettings;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.retention.ExpireOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The source removes and replaces the {@code statistics} and {@code partition-statistics} of
 * snapshots it still holds (Puffin files written by Iceberg's Puffin writer, partition statistics
 * computed by the library): the replica follows, keeps the entry of a snapshot only it still holds,
 * and its retention deletes the statistics files no snapshot names any more.
 */
class StatisticsReplicationTest {
  private static final long DAY = 24L * 3600 * 1000;

  @TempDir Path dir;

  @ParameterizedTest(name = "expiring a snapshot too: {0}")
  @ValueSource(booleans = {false, true})
  void removedAndReplacedStatisticsFollowTheSourceAndRetentionDeletesTheOldFiles(
      boolean expireFirst) {
    ScenarioTable source =
        ScenarioTable.create(
            "stats",
            dir.resolve("source").toString(),
            SourceTable.SCHEMA,
            PartitionSpec.builderFor(SourceTable.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    String replica = dir.resolve("replica").toString();
    long[] ids = new long[3];
    for (int i = 0; i < 3; i++) {
      source.append(source.row((long) i, "c" + i));
      source.addStatisticsForCurrentSnapshot();
      ids[i] = source.table().currentSnapshot().snapshotId();
    }
    Replication.replicate(source.location(), replica);
    assertStatisticsMatch(source.table(), load(replica), Set.of());
    Table first = load(replica);
    List<String> before = replicaStatisticsPaths(first);

    // the source expires the first snapshot, removes the second's statistics, replaces the third's
    Table table = source.table();
    table.expireSnapshots().expireSnapshotId(ids[0]).commit();
    table.updateStatistics().removeStatistics(ids[1]).commit();
    table.updatePartitionStatistics().removePartitionStatistics(ids[1]).commit();
    source.addStatisticsForCurrentSnapshot();
    Replication.replicate(source.location(), replica);

    Table replicaTable = load(replica);
    assertStatisticsMatch(source.table(), replicaTable, Set.of(ids[0]));
    assertThat(replicaTable.statisticsFiles())
        .extracting(StatisticsFile::snapshotId)
        .containsExactlyInAnyOrder(ids[0], ids[2]);
    assertThat(replicaTable.partitionStatisticsFiles())
        .extracting(PartitionStatisticsFile::snapshotId)
        .containsExactlyInAnyOrder(ids[0], ids[2]);
    List<String> current = replicaStatisticsPaths(replicaTable);
    List<String> replaced = before.stream().filter(p -> !current.contains(p)).toList();
    List<String> expectedReplaced = new ArrayList<>(statisticsPathsOf(first, ids[1]));
    first.statisticsFiles().stream()
        .filter(f -> f.snapshotId() == ids[2])
        .forEach(f -> expectedReplaced.add(f.path()));
    assertThat(replaced)
        .as("the second's files and the third's old Puffin file")
        .containsAll(expectedReplaced);
    replaced.forEach(
        p ->
            assertThat(Files.exists(LocalObjectStore.toPath(p)))
                .as("%s before expiry", p)
                .isTrue());

    long now = replicaTable.currentSnapshot().timestampMillis() + DAY;
    ExpireOptions options =
        expireFirst
            ? new ExpireOptions(
                Optional.empty(), Optional.empty(), Optional.empty(), Set.of(ids[0]), false)
            : new ExpireOptions(
                Optional.empty(), Optional.of(10 * DAY), Optional.of(10), Set.of(), false);
    RetentionResult result =
        new RetentionRunner(
                new LocalObjectStore(),
                Clock.fixed(Instant.ofEpochMilli(now), ZoneOffset.UTC),
                RetentionSettings.defaults())
            .expire(replica, Optional.empty(), UnaryOperator.identity(), options);

    List<String> deleted = new ArrayList<>(replaced);
    if (expireFirst) {
      deleted.addAll(statisticsPathsOf(replicaTable, ids[0]));
    }
    assertThat(result.metrics()).containsEntry("deletedStatisticsFilesCount", deleted.size());
    deleted.forEach(
        p ->
            assertThat(Files.exists(LocalObjectStore.toPath(p)))
                .as("%s after expiry", p)
                .isFalse());
    Table expired = load(replica);
    assertThat(expired.snapshot(ids[0]) == null).isEqualTo(expireFirst);
    for (String kept : replicaStatisticsPaths(expired)) {
      assertThat(Files.exists(LocalObjectStore.toPath(kept))).as("%s after expiry", kept).isTrue();
    }
    assertThat(replicaStatisticsPaths(expired))
        .containsAll(statisticsPathsOf(replicaTable, ids[2]));
    assertThat(Rows.atSnapshot(expired, ids[2])).isEqualTo(Rows.atSnapshot(source.table(), ids[2]));
  }

  /**
   * The replica's entries are the source's, paths mapped, for every snapshot the source holds;
   * {@code replicaOnly} snapshots keep an entry on the replica only.
   */
  private static void assertStatisticsMatch(Table source, Table replica, Set<Long> replicaOnly) {
    List<String> sourceStatistics = new ArrayList<>();
    source
        .statisticsFiles()
        .forEach(
            f ->
                sourceStatistics.add(
                    describe(f.snapshotId(), f.path(), f.fileSizeInBytes())
                        + " footer "
                        + f.fileFooterSizeInBytes()
                        + " blobs "
                        + f.blobMetadata().size()));
    List<String> replicaStatistics = new ArrayList<>();
    replica.statisticsFiles().stream()
        .filter(f -> !replicaOnly.contains(f.snapshotId()))
        .forEach(
            f ->
                replicaStatistics.add(
                    describe(f.snapshotId(), f.path(), f.fileSizeInBytes())
                        + " footer "
                        + f.fileFooterSizeInBytes()
                        + " blobs "
                        + f.blobMetadata().size()));
    assertThat(replicaStatistics)
        .as("statistics")
        .containsExactlyInAnyOrderElementsOf(sourceStatistics);

    List<String> sourcePartition = new ArrayList<>();
    source
        .partitionStatisticsFiles()
        .forEach(f -> sourcePartition.add(describe(f.snapshotId(), f.path(), f.fileSizeInBytes())));
    List<String> replicaPartition = new ArrayList<>();
    replica.partitionStatisticsFiles().stream()
        .filter(f -> !replicaOnly.contains(f.snapshotId()))
        .forEach(
            f -> replicaPartition.add(describe(f.snapshotId(), f.path(), f.fileSizeInBytes())));
    assertThat(replicaPartition)
        .as("partition statistics")
        .containsExactlyInAnyOrderElementsOf(sourcePartition);

    for (String path : replicaStatisticsPaths(replica)) {
      assertThat(path).contains("/replica/").doesNotContain("/source/");
      assertThat(Files.exists(LocalObjectStore.toPath(path)))
          .as("%s on the replica", path)
          .isTrue();
    }
  }

  /** An entry with its path relative to its table, so source and replica entries compare. */
  private static String describe(long snapshotId, String path, long size) {
    String relative = path.substring(path.indexOf("/metadata/"));
    return snapshotId + " " + relative + " " + size;
  }

  private static List<String> replicaStatisticsPaths(Table table) {
    List<String> paths = new ArrayList<>();
    table.statisticsFiles().forEach(f -> paths.add(f.path()));
    table.partitionStatisticsFiles().forEach(f -> paths.add(f.path()));
    return paths;
  }

  private static List<String> statisticsPathsOf(Table table, long snapshotId) {
    List<String> paths = new ArrayList<>();
    table.statisticsFiles().stream()
        .filter(f -> f.snapshotId() == snapshotId)
        .forEach(f -> paths.add(f.path()));
    table.partitionStatisticsFiles().stream()
        .filter(f -> f.snapshotId() == snapshotId)
        .forEach(f -> paths.add(f.path()));
    return paths;
  }

  private static Table load(String location) {
    return new ReplicaVerifier().load(location);
  }
}
