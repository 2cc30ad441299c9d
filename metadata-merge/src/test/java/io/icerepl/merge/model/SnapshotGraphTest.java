package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The snapshot graph is checked where metadata is read: what Iceberg writes (expired parents,
 * pruned logs, branches, tags, empty tables, v1) reads; a parent chain that loops, a repeated id, a
 * ref or current snapshot naming no snapshot, and a manifest list that is a metadata file are
 * refused with their reason, naming the file.
 */
class SnapshotGraphTest {
  private static final String FILE = "v9.metadata.json";

  @TempDir Path dir;

  private IcebergHistory history(int formatVersion) {
    return IcebergHistory.create(dir.resolve("t"), formatVersion, Map.of());
  }

  private static Set<Long> ids(JsonNode snapshots) {
    Set<Long> ids = new HashSet<>();
    snapshots.forEach(s -> ids.add(s.get("snapshot-id").asLong()));
    return ids;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void expiredParentsAndPrunedLogsAsIcebergLeavesThemRead(int formatVersion) {
    IcebergHistory history =
        IcebergHistory.create(
            dir.resolve("t"),
            formatVersion,
            Map.of(
                "write.metadata.previous-versions-max", "1",
                "write.metadata.delete-after-commit.enabled", "true"));
    for (int i = 0; i < 4; i++) {
      history.append();
    }
    history
        .table
        .expireSnapshots()
        .retainLast(2)
        .expireOlderThan(Long.MAX_VALUE)
        .cleanExpiredFiles(false)
        .commit();
    ObjectNode json = history.json();
    Set<Long> held = ids(json.get("snapshots"));
    // what this test is about: a held snapshot names an expired one as its parent, logs pruned
    assertThat(json.get("snapshots"))
        .anySatisfy(s -> assertThat(held).doesNotContain(s.get("parent-snapshot-id").asLong()));
    assertThat(json.get("metadata-log")).hasSize(1);
    assertThat(json.get("snapshot-log")).hasSizeLessThan(4);

    TableMetadata metadata = IcebergHistory.read(json);

    assertThat(metadata.snapshots()).hasSize(2);
    assertThat(metadata.currentSnapshotId()).contains(history.table.currentSnapshot().snapshotId());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void aTableWithNoSnapshotsReads(int formatVersion) {
    IcebergHistory history = history(formatVersion);

    TableMetadata metadata = history.read();

    assertThat(metadata.snapshots()).isEmpty();
    assertThat(metadata.currentSnapshotId()).isEmpty();
    // v1 and v2 write -1, v3 null: both mean none
    JsonNode current = history.json().get("current-snapshot-id");
    assertThat(current == null || current.isNull() || current.asLong() == -1L).isTrue();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void branchesAndTagsRead(int formatVersion) {
    IcebergHistory history = history(formatVersion);
    long first = history.append();
    long second = history.append();
    history.table.manageSnapshots().createBranch("audit", first).commit();
    long onBranch = history.appendTo("audit");
    history.table.manageSnapshots().createTag("t", second).commit();

    TableMetadata metadata = history.read();

    assertThat(metadata.refs())
        .containsEntry("main", second)
        .containsEntry("audit", onBranch)
        .containsEntry("t", second);
  }

  /** The walk every caller uses is Iceberg's own: newest first, ending at an expired parent. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void ancestorsAreIcebergsAncestors(int formatVersion) {
    IcebergHistory history = history(formatVersion);
    long first = history.append();
    history.append();
    history.table.manageSnapshots().createBranch("audit", first).commit();
    history.appendTo("audit");
    history.append();
    history.append();
    history
        .table
        .expireSnapshots()
        .retainLast(2)
        .expireOlderThan(Long.MAX_VALUE)
        .cleanExpiredFiles(false)
        .commit();
    history.table.refresh();

    SnapshotGraph graph = history.read().graph();

    for (var ref : history.table.refs().entrySet()) {
      List<Long> ours = new ArrayList<>();
      graph.ancestors(ref.getValue().snapshotId()).forEach(s -> ours.add(s.snapshotId()));
      List<Long> iceberg = new ArrayList<>();
      SnapshotUtil.ancestorIds(
              history.table.snapshot(ref.getValue().snapshotId()), history.table::snapshot)
          .forEach(iceberg::add);
      assertThat(ours).as(ref.getKey()).isEqualTo(iceberg).isNotEmpty();
    }
    assertThat(graph.ancestors(42L)).isEmpty();
  }

  @Test
  void twoSnapshotsNamingEachOtherAsParentAreRefused() {
    IcebergHistory history = history(2);
    long first = history.append();
    long second = history.append();

    assertThatThrownBy(
            () -> history.readEdited(json -> IcebergHistory.setParent(json, first, second)))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": snapshots "
                + first
                + " and "
                + second
                + " name each other as parent (a cycle)");
  }

  @Test
  void aSnapshotNamingItselfAsParentIsRefused() {
    IcebergHistory history = history(2);
    long first = history.append();
    history.append();

    assertThatThrownBy(
            () -> history.readEdited(json -> IcebergHistory.setParent(json, first, first)))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": snapshot "
                + first
                + " names itself as parent (a cycle)");
  }

  /** A loop of three, through a dropped branch's snapshot, is named by its members. */
  @Test
  void aLongerLoopIsRefused() {
    IcebergHistory history = history(2);
    long a = history.append();
    long b = history.append();
    long c = history.append();
    history.append();
    history.table.manageSnapshots().createBranch("side", c).commit();
    long side = history.appendTo("side");
    history.table.manageSnapshots().removeBranch("side").commit();

    assertThatThrownBy(
            () ->
                history.readEdited(
                    json -> {
                      IcebergHistory.setParent(json, a, side);
                      removeSnapshot(json, b);
                      IcebergHistory.setParent(json, c, a);
                    }))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": snapshots "
                + a
                + ", "
                + side
                + ", "
                + c
                + " (3 in all) each name the next as parent, and the last the first (a cycle)");
  }

  private static void removeSnapshot(ObjectNode json, long id) {
    var snapshots = json.withArray("snapshots");
    for (int i = 0; i < snapshots.size(); i++) {
      if (snapshots.get(i).get("snapshot-id").asLong() == id) {
        snapshots.remove(i);
        return;
      }
    }
  }

  @Test
  void aRepeatedSnapshotIdIsRefused() {
    IcebergHistory history = history(2);
    long first = history.append();
    history.append();

    assertThatThrownBy(
            () ->
                history.readEdited(
                    json -> json.withArray("snapshots").add(json.withArray("snapshots").get(0))))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": snapshot "
                + first
                + " appears twice in 'snapshots'");
  }

  @Test
  void aCurrentSnapshotIdNamingNoSnapshotIsRefused() {
    IcebergHistory history = history(1);
    history.append();

    assertThatThrownBy(
            () ->
                history.readEdited(
                    json -> {
                      json.remove("refs");
                      json.put("current-snapshot-id", 42);
                    }))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": current-snapshot-id 42 is not among its snapshots");
  }

  @Test
  void aRefNamingNoSnapshotIsRefused() {
    IcebergHistory history = history(2);
    history.append();

    assertThatThrownBy(
            () ->
                history.readEdited(
                    json ->
                        json.with("refs")
                            .putObject("lost")
                            .put("snapshot-id", 42)
                            .put("type", "tag")))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": ref 'lost' names snapshot 42, which is not among its snapshots");
  }

  @Test
  void aManifestListThatIsAMetadataFileOfTheTableIsRefused() {
    IcebergHistory history = history(2);
    history.append();
    String previous = history.metadataFile();
    long second = history.append();

    assertThatThrownBy(
            () ->
                history.readEdited(
                    json -> {
                      for (JsonNode s : json.withArray("snapshots")) {
                        if (s.get("snapshot-id").asLong() == second) {
                          ((ObjectNode) s).put("manifest-list", previous);
                        }
                      }
                    }))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata "
                + FILE
                + ": snapshot "
                + second
                + "'s manifest-list "
                + previous
                + " is a metadata file of the table, not a manifest list");
  }

  /** Two snapshots sharing a manifest list is odd but not corrupt: it is read. */
  @Test
  void twoSnapshotsSharingAManifestListRead() {
    IcebergHistory history = history(2);
    history.append();
    history.append();

    TableMetadata metadata =
        history.readEdited(
            json -> {
              var snapshots = json.withArray("snapshots");
              ((ObjectNode) snapshots.get(1))
                  .put("manifest-list", snapshots.get(0).get("manifest-list").asText());
            });

    assertThat(metadata.snapshots()).hasSize(2);
  }

  /** Metadata built in memory is checked as read metadata is. */
  @Test
  void metadataBuiltWithALoopIsRefused() {
    IcebergHistory history = history(2);
    long first = history.append();
    long second = history.append();
    ObjectNode json = history.json();
    IcebergHistory.setParent(json, first, second);

    assertThatThrownBy(() -> TableMetadataParser.fromJson(json, "built"))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata built: snapshots "
                + first
                + " and "
                + second
                + " name each other as parent (a cycle)");
  }
}
