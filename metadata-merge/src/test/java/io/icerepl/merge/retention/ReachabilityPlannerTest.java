package io.icerepl.merge.retention;

import static io.icerepl.merge.retention.RetentionTables.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.model.TableMetadata;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.ImmutableGenericPartitionStatisticsFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReachabilityPlannerTest {

  @TempDir Path dir;

  // ---------------------------------------------------------------- appends, deletes, overwrites

  @Test
  void expiringSnapshotsBeforeADeleteDeletesTheRemovedDataFileAndTheOldListsButKeepsLiveFiles() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    DataFile c = data(table, "c.parquet");
    table.newAppend().appendFile(a).appendFile(b).commit();
    long s1 = table.currentSnapshot().snapshotId();
    List<String> s1Manifests = manifests(table, s1);
    table.newAppend().appendFile(c).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newDelete().deleteFile(a).commit();

    UnreachableFiles files = expire(table, List.of(s1, s2));

    assertThat(files.dataFiles()).containsExactly(a.location());
    assertThat(files.manifestLists())
        .containsExactly(manifestList(table, s1), manifestList(table, s2));
    assertThat(files.manifests()).containsExactlyElementsOf(s1Manifests);
    assertThat(files.positionDeleteFiles()).isEmpty();
    assertThat(files.equalityDeleteFiles()).isEmpty();
    assertThat(files.all())
        .doesNotContainAnyElementsOf(
            reachable(table, List.of(table.currentSnapshot().snapshotId())));
    assertThat(files.all())
        .containsExactlyInAnyOrderElementsOf(expectedUnreachable(table, List.of(s1, s2)));
  }

  @Test
  void anOverwriteReplacingAFileDeletesItOnlyOnceEverySnapshotThatReadItExpired() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    table.newAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newOverwrite().deleteFile(a).addFile(b).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "c.parquet")).commit();

    assertThat(expire(table, List.of(s2)).dataFiles()).isEmpty();
    assertThat(expire(table, List.of(s1)).dataFiles()).containsExactly(a.location());
    assertThat(expire(table, List.of(s1, s2)).dataFiles()).containsExactly(a.location());
  }

  @Test
  void nothingExpiredMeansNothingToDelete() {
    Table table = create(dir, 2);
    table.newAppend().appendFile(data(table, "a.parquet")).commit();

    assertThat(expire(table, List.of()).all()).isEmpty();
  }

  // ---------------------------------------------------------------- shared manifests

  @Test
  void aManifestSharedByFastAppendsIsKeptWhileARetainedSnapshotNamesIt() {
    Table table = create(dir, 2);
    table.newFastAppend().appendFile(data(table, "a.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newFastAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newFastAppend().appendFile(data(table, "c.parquet")).commit();
    long s3 = table.currentSnapshot().snapshotId();
    assertThat(manifests(table, s3))
        .containsAll(manifests(table, s1))
        .containsAll(manifests(table, s2));

    UnreachableFiles files = expire(table, List.of(s1, s2));

    assertThat(files.manifests()).isEmpty();
    assertThat(files.dataFiles()).isEmpty();
    assertThat(files.manifestLists())
        .containsExactly(manifestList(table, s1), manifestList(table, s2));
  }

  // ---------------------------------------------------------------- manifest merge and rewrite

  @Test
  void aDataFileMovedIntoAMergedManifestAsExistingIsKeptWhenTheOldManifestExpires() {
    Table table =
        create(
            dir,
            2,
            Map.of(
                "commit.manifest.min-count-to-merge",
                "2",
                "commit.manifest-merge.enabled",
                "true"));
    DataFile a = data(table, "a.parquet");
    table.newAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    // The merge really happened: the second snapshot no longer names the first manifest.
    assertThat(manifests(table, s2)).doesNotContainAnyElementsOf(manifests(table, s1)).hasSize(1);

    UnreachableFiles files = expire(table, List.of(s1));

    assertThat(files.dataFiles()).isEmpty();
    assertThat(files.manifests()).containsExactlyElementsOf(manifests(table, s1));
  }

  @Test
  void aDataFileRewrittenIntoANewManifestByRewriteManifestsIsKeptWhenTheOldManifestsExpire() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    table.newFastAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newFastAppend().appendFile(b).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.rewriteManifests().clusterBy(file -> "all").commit();
    long s3 = table.currentSnapshot().snapshotId();
    assertThat(manifests(table, s3)).doesNotContainAnyElementsOf(manifests(table, s2));

    UnreachableFiles files = expire(table, List.of(s1, s2));

    assertThat(files.dataFiles()).isEmpty();
    assertThat(files.manifests()).containsExactlyInAnyOrderElementsOf(manifests(table, s2));
  }

  // ---------------------------------------------------------------- compaction

  @Test
  void compactedFilesAreDeletedOnlyWhenEverySnapshotThatReadThemExpired() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    DataFile compacted = data(table, "ab.parquet");
    table.newAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(b).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newRewrite().rewriteFiles(Set.of(a, b), Set.of(compacted)).commit();
    long s3 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "d.parquet")).commit();

    assertThat(expire(table, List.of(s1)).dataFiles()).isEmpty();
    assertThat(expire(table, List.of(s3)).dataFiles()).isEmpty();
    assertThat(expire(table, List.of(s1, s2)).dataFiles())
        .containsExactlyInAnyOrder(a.location(), b.location());
    assertThat(expire(table, List.of(s1, s2, s3)).dataFiles())
        .containsExactlyInAnyOrder(a.location(), b.location());
  }

  // ---------------------------------------------------------------- branches and tags

  @Test
  void aFileOnlyATaggedSnapshotReachesIsKeptWhileThatSnapshotIsRetained() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    table.newAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("release-1", s1).commit();
    table.newOverwrite().deleteFile(a).addFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "c.parquet")).commit();

    assertThat(expire(table, List.of(s2)).dataFiles()).isEmpty();
    // Once the tag's snapshot goes too (the tag dropped by its max-ref-age), the file goes.
    assertThat(expire(table, List.of(s1, s2)).dataFiles()).containsExactly(a.location());
  }

  @Test
  void aFileABranchStillReachesThroughASharedManifestIsKept() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    table.newFastAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createBranch("audit", s1).commit();
    DataFile audited = data(table, "audited.parquet");
    table.newFastAppend().appendFile(audited).toBranch("audit").commit();
    long branchHead = table.refs().get("audit").snapshotId();
    table.newDelete().deleteFile(a).commit();
    assertThat(manifests(table, branchHead)).containsAll(manifests(table, s1));

    UnreachableFiles files = expire(table, List.of(s1));

    assertThat(files.dataFiles()).isEmpty();
    assertThat(files.manifests()).isEmpty();
    assertThat(files.manifestLists()).containsExactly(manifestList(table, s1));
    assertThat(expire(table, List.of(s1, branchHead)).dataFiles())
        .containsExactlyInAnyOrder(a.location(), audited.location());
  }

  // ---------------------------------------------------------------- delete files

  @Test
  void aDeletionVectorPuffinFileNamedByManyEntriesIsListedOnce() {
    Table table = create(dir, 3);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    DataFile c = data(table, "c.parquet");
    table.newAppend().appendFile(a).appendFile(b).appendFile(c).commit();
    long s1 = table.currentSnapshot().snapshotId();
    DeleteFile dvA = deletionVector(table, "dv-1.puffin", a, 4);
    DeleteFile dvB = deletionVector(table, "dv-1.puffin", b, 44);
    DeleteFile dvC = deletionVector(table, "dv-1.puffin", c, 84);
    table.newRowDelta().addDeletes(dvA).addDeletes(dvB).addDeletes(dvC).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newRowDelta().removeDeletes(dvA).removeDeletes(dvB).removeDeletes(dvC).commit();

    assertThat(expire(table, List.of(s1)).positionDeleteFiles()).isEmpty();
    UnreachableFiles files = expire(table, List.of(s1, s2), 1);

    assertThat(files.positionDeleteFiles()).containsExactly(dvA.location());
    assertThat(files.dataFiles()).isEmpty();
    assertThat(files.all()).doesNotHaveDuplicates();
  }

  @Test
  void equalityAndPositionDeleteFilesAreClassifiedByTheirContent() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    table.newAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    DeleteFile pos = positionDeletes(table, "pos-1.parquet");
    DeleteFile eq = equalityDeletes(table, "eq-1.parquet");
    table.newRowDelta().addDeletes(pos).addDeletes(eq).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newRowDelta().removeDeletes(pos).removeDeletes(eq).commit();

    UnreachableFiles files = expire(table, List.of(s1, s2));

    assertThat(files.positionDeleteFiles()).containsExactly(pos.location());
    assertThat(files.equalityDeleteFiles()).containsExactly(eq.location());
    assertThat(files.dataFiles()).isEmpty();
    assertThat(files.all())
        .containsExactlyInAnyOrderElementsOf(expectedUnreachable(table, List.of(s1, s2)));
  }

  // ---------------------------------------------------------------- statistics

  @Test
  void statisticsFilesOfExpiredSnapshotsAreDeletedAndThoseOfRetainedSnapshotsKept() {
    Table table = create(dir, 2);
    table.newAppend().appendFile(data(table, "a.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    String stats1 = table.location() + "/metadata/stats-1.puffin";
    String stats2 = table.location() + "/metadata/stats-2.puffin";
    String partitionStats1 = table.location() + "/metadata/partition-stats-1.parquet";
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(s1, stats1, 100, 10, List.of()))
        .commit();
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(s2, stats2, 100, 10, List.of()))
        .commit();
    table
        .updatePartitionStatistics()
        .setPartitionStatistics(
            ImmutableGenericPartitionStatisticsFile.builder()
                .snapshotId(s1)
                .path(partitionStats1)
                .fileSizeInBytes(50)
                .build())
        .commit();

    UnreachableFiles files = expire(table, List.of(s1));

    assertThat(files.statisticsFiles()).containsExactly(stats1, partitionStats1);
  }

  @Test
  void aStatisticsFileARetainedSnapshotAlsoNamesIsKept() {
    Table table = create(dir, 2);
    table.newAppend().appendFile(data(table, "a.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    String shared = table.location() + "/metadata/stats-shared.puffin";
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(s1, shared, 100, 10, List.of()))
        .commit();
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(s2, shared, 100, 10, List.of()))
        .commit();

    assertThat(expire(table, List.of(s1)).statisticsFiles()).isEmpty();
  }

  // ---------------------------------------------------------------- unreadable input

  @Test
  void aTruncatedRetainedManifestFailsThePlanEvenWhenNoCandidateNeedsIt() {
    Table table = create(dir, 2);
    table.newFastAppend().appendFile(data(table, "a.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newFastAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    TableMetadata before = metadata(table);
    List<String> s2Only = new ArrayList<>(manifests(table, s2));
    s2Only.removeAll(manifests(table, s1));
    truncate(s2Only.get(0));

    assertThatThrownBy(
            () ->
                ReachabilityPlanner.unreachable(
                    ReachabilityPlanner.describe(before, List.of(s1)),
                    without(before, List.of(s1)),
                    LOCAL,
                    10))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining(fileName(s2Only.get(0)));
  }

  @Test
  void aTruncatedRetainedManifestFailsThePlanWhenCandidatesNeedChecking() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    table.newAppend().appendFile(a).appendFile(data(table, "b.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newDelete().deleteFile(a).commit();
    long s2 = table.currentSnapshot().snapshotId();
    TableMetadata before = metadata(table);
    manifests(table, s2).forEach(RetentionTables::truncate);

    assertThatThrownBy(
            () ->
                ReachabilityPlanner.unreachable(
                    ReachabilityPlanner.describe(before, List.of(s1)),
                    without(before, List.of(s1)),
                    LOCAL,
                    1))
        .isInstanceOf(BadInputException.class);
  }

  @Test
  void aTruncatedExpiredManifestFailsThePlan() {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    table.newAppend().appendFile(a).commit();
    long s1 = table.currentSnapshot().snapshotId();
    List<String> s1Manifests = manifests(table, s1);
    table.newDelete().deleteFile(a).commit();
    TableMetadata before = metadata(table);
    s1Manifests.forEach(RetentionTables::truncate);

    assertThatThrownBy(
            () ->
                ReachabilityPlanner.unreachable(
                    ReachabilityPlanner.describe(before, List.of(s1)),
                    without(before, List.of(s1)),
                    LOCAL,
                    10))
        .isInstanceOf(BadInputException.class);
  }

  @Test
  void aMissingRetainedManifestListFailsThePlanWithTheIoError() throws Exception {
    Table table = create(dir, 2);
    table.newAppend().appendFile(data(table, "a.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    TableMetadata before = metadata(table);
    Files.delete(local(manifestList(table, s2)));

    assertThatThrownBy(
            () ->
                ReachabilityPlanner.unreachable(
                    ReachabilityPlanner.describe(before, List.of(s1)),
                    without(before, List.of(s1)),
                    LOCAL,
                    10))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(fileName(manifestList(table, s2)));
  }

  @Test
  void aBatchSizeBelowOneIsRefused() {
    Table table = create(dir, 2);
    table.newAppend().appendFile(data(table, "a.parquet")).commit();
    TableMetadata metadata = metadata(table);

    assertThatThrownBy(() -> ReachabilityPlanner.unreachable(List.of(), metadata, LOCAL, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot plan unreachable files: batchSize");
  }

  // ---------------------------------------------------------------- describe

  @Test
  void describeNamesTheManifestListsAndStatisticsOfTheGivenSnapshotsOnly() {
    Table table = create(dir, 2);
    table.newAppend().appendFile(data(table, "a.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newAppend().appendFile(data(table, "b.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    String stats1 = table.location() + "/metadata/stats-1.puffin";
    String partitionStats1 = table.location() + "/metadata/partition-stats-1.parquet";
    String stats2 = table.location() + "/metadata/stats-2.puffin";
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(s1, stats1, 100, 10, List.of()))
        .commit();
    table
        .updateStatistics()
        .setStatistics(new GenericStatisticsFile(s2, stats2, 100, 10, List.of()))
        .commit();
    table
        .updatePartitionStatistics()
        .setPartitionStatistics(
            ImmutableGenericPartitionStatisticsFile.builder()
                .snapshotId(s1)
                .path(partitionStats1)
                .fileSizeInBytes(50)
                .build())
        .commit();

    List<ExpiredSnapshot> described =
        ReachabilityPlanner.describe(metadata(table), List.of(s1, 424242L));

    assertThat(described)
        .containsExactly(
            new ExpiredSnapshot(
                s1, manifestList(table, s1), List.of(), List.of(stats1, partitionStats1)));
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
