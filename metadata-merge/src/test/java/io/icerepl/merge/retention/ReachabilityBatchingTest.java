package io.icerepl.merge.retention;

import static io.icerepl.merge.retention.RetentionTables.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Properties over a few real tables: every batch size gives the same files, and those are exactly
 * what Iceberg's own reading of the manifests says only the expired snapshots reach.
 */
class ReachabilityBatchingTest {

  @TempDir Path dir;

  @Test
  void batchSizeOneGivesTheSameFilesAsALargeBatchAndAsIcebergsOwnReading() {
    List<Function<Path, Table>> builders =
        List.of(
            ReachabilityBatchingTest::appendsDeletesAndCompaction,
            ReachabilityBatchingTest::mergedAppends,
            ReachabilityBatchingTest::deleteFilesAndABranch,
            ReachabilityBatchingTest::deletionVectors);
    Random random = new Random(20240611L);
    int checked = 0;
    for (int i = 0; i < builders.size(); i++) {
      Table table = builders.get(i).apply(dir.resolve("t" + i));
      List<Long> expirable = expirable(table);
      List<List<Long>> expirations = new ArrayList<>();
      for (int k = 1; k <= expirable.size(); k++) {
        expirations.add(expirable.subList(0, k));
      }
      for (int r = 0; r < 5; r++) {
        List<Long> subset = new ArrayList<>();
        expirable.forEach(
            id -> {
              if (random.nextBoolean()) subset.add(id);
            });
        expirations.add(subset);
      }
      for (List<Long> ids : expirations) {
        UnreachableFiles large = expire(table, ids, 10_000);
        assertThat(expire(table, ids, 1)).as("batch 1, expiring %s", ids).isEqualTo(large);
        assertThat(expire(table, ids, 2)).as("batch 2, expiring %s", ids).isEqualTo(large);
        assertThat(large.all())
            .as("expiring %s", ids)
            .doesNotHaveDuplicates()
            .containsExactlyInAnyOrderElementsOf(expectedUnreachable(table, ids));
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(20);
  }

  @Test
  void v1SnapshotsThatListManifestsInlineAreFollowedLikeManifestLists() {
    Table table = create(dir, 1);
    DataFile a = data(table, "a.parquet");
    table.newFastAppend().appendFile(a).appendFile(data(table, "b.parquet")).commit();
    long s1 = table.currentSnapshot().snapshotId();
    table.newFastAppend().appendFile(data(table, "c.parquet")).commit();
    long s2 = table.currentSnapshot().snapshotId();
    table.newDelete().deleteFile(a).commit();
    TableMetadata before = inlineManifests(table, metadata(table));
    List<Long> ids = List.of(s1, s2);

    List<ExpiredSnapshot> described = ReachabilityPlanner.describe(before, ids);
    UnreachableFiles files =
        ReachabilityPlanner.unreachable(described, without(before, ids), LOCAL, 1);

    assertThat(described).extracting(ExpiredSnapshot::manifestList).containsOnlyNulls();
    assertThat(described.get(0).manifests()).containsExactlyElementsOf(manifests(table, s1));
    assertThat(files.dataFiles()).containsExactly(a.location());
    assertThat(files.manifests()).containsExactlyElementsOf(manifests(table, s1));
    assertThat(files.manifestLists()).isEmpty();
  }

  /** The metadata as a v1 writer that predates manifest lists would have written it. */
  private static TableMetadata inlineManifests(Table table, TableMetadata metadata) {
    ObjectNode json = metadata.copyOfJson();
    json.get("snapshots")
        .forEach(
            node -> {
              ObjectNode snapshot = (ObjectNode) node;
              ArrayNode inline = snapshot.putArray("manifests");
              manifests(table, snapshot.get("snapshot-id").asLong()).forEach(inline::add);
              snapshot.remove("manifest-list");
            });
    return TableMetadataParser.fromJson(json, "v1 with inline manifests");
  }

  /** Snapshots retention may expire: neither the current one nor one a ref points at. */
  private static List<Long> expirable(Table table) {
    Set<Long> protectedIds = new HashSet<>();
    protectedIds.add(table.currentSnapshot().snapshotId());
    table.refs().values().stream().map(SnapshotRef::snapshotId).forEach(protectedIds::add);
    List<Long> ids = new ArrayList<>(snapshotIds(table));
    ids.removeAll(protectedIds);
    return ids;
  }

  private static Table appendsDeletesAndCompaction(Path dir) {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    DataFile c = data(table, "c.parquet");
    DataFile ab = data(table, "ab.parquet");
    table.newFastAppend().appendFile(a).commit();
    table.newFastAppend().appendFile(b).appendFile(c).commit();
    table.newDelete().deleteFile(c).commit();
    table.newRewrite().rewriteFiles(Set.of(a, b), Set.of(ab)).commit();
    table.newFastAppend().appendFile(data(table, "d.parquet")).commit();
    table.rewriteManifests().clusterBy(file -> "all").commit();
    table.newOverwrite().deleteFile(ab).addFile(data(table, "e.parquet")).commit();
    return table;
  }

  private static Table mergedAppends(Path dir) {
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
    table.newAppend().appendFile(data(table, "b.parquet")).commit();
    table.newAppend().appendFile(data(table, "c.parquet")).commit();
    table.newDelete().deleteFile(a).commit();
    table.newAppend().appendFile(data(table, "d.parquet")).commit();
    return table;
  }

  private static Table deleteFilesAndABranch(Path dir) {
    Table table = create(dir, 2);
    DataFile a = data(table, "a.parquet");
    table.newFastAppend().appendFile(a).appendFile(data(table, "b.parquet")).commit();
    DeleteFile pos = positionDeletes(table, "pos-1.parquet");
    DeleteFile eq = equalityDeletes(table, "eq-1.parquet");
    table.newRowDelta().addDeletes(pos).addDeletes(eq).commit();
    long withDeletes = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("before-cleanup", withDeletes).commit();
    table.manageSnapshots().createBranch("audit", withDeletes).commit();
    table.newFastAppend().appendFile(data(table, "audit-1.parquet")).toBranch("audit").commit();
    table.newFastAppend().appendFile(data(table, "audit-2.parquet")).toBranch("audit").commit();
    table
        .newRowDelta()
        .removeDeletes(pos)
        .addDeletes(positionDeletes(table, "pos-2.parquet"))
        .commit();
    table.newDelete().deleteFile(a).commit();
    table.newRowDelta().removeDeletes(eq).commit();
    return table;
  }

  private static Table deletionVectors(Path dir) {
    Table table = create(dir, 3);
    DataFile a = data(table, "a.parquet");
    DataFile b = data(table, "b.parquet");
    table.newFastAppend().appendFile(a).appendFile(b).commit();
    DeleteFile dvA = deletionVector(table, "dv-1.puffin", a, 4);
    DeleteFile dvB = deletionVector(table, "dv-1.puffin", b, 44);
    table.newRowDelta().addDeletes(dvA).addDeletes(dvB).commit();
    // A newer DV for a replaces the old one (Iceberg allows one live DV per data file).
    table.newRowDelta().removeDeletes(dvA).commit();
    table
        .newRowDelta()
        .addDeletes(deletionVector(table, "dv-2.puffin", a, 4))
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .commit();
    table.newRowDelta().removeDeletes(dvB).commit();
    table.newFastAppend().appendFile(data(table, "c.parquet")).commit();
    return table;
  }
}
