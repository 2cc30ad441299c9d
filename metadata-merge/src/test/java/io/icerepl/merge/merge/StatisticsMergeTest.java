package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which statistics entries the replica keeps, and which of their files are copied. */
class StatisticsMergeTest {
  private static final String SRC = "s3://source/db/t";
  private static final String DST = "s3://replica/db/t";

  private static MetadataJson table() {
    return MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
  }

  /** Adds one entry to {@code field}, its file under the table's metadata folder. */
  private static void entry(MetadataJson table, String field, long snapshotId, String file) {
    String root = table.location() + "/metadata/";
    table
        .json
        .withArray(field)
        .addObject()
        .put("snapshot-id", snapshotId)
        .put("statistics-path", root + file)
        .put("file-size-in-bytes", file.length());
  }

  private record Merged(ObjectNode out, List<FileCopy> files) {
    List<String> paths(String field) {
      List<String> paths = new ArrayList<>();
      out.path(field).forEach(n -> paths.add(n.get("statistics-path").asText()));
      return paths;
    }
  }

  private static Merged merge(TableMetadata replica, TableMetadata source, long... heldIds) {
    ObjectNode out = source.toBuilder().fields();
    SnapshotIdIndex held = new SnapshotIdIndex(heldIds.length);
    for (long id : heldIds) {
      held.putIfAbsent(id, held.size());
    }
    PathMapping mapping = TableLayout.mapping(source, DST, List.of());
    return new Merged(out, StatisticsMerge.merge(out, replica, source, held, mapping));
  }

  @Test
  void aSourceEntryOfAHeldSnapshotIsMappedAndItsFileCopied() {
    MetadataJson source = table();
    entry(source, "statistics", 2, "stats-2.puffin");
    entry(source, "statistics", 9, "stats-9.puffin");

    Merged merged = merge(null, source.build(), 1, 2);

    assertThat(merged.paths("statistics")).containsExactly(DST + "/metadata/stats-2.puffin");
    assertThat(merged.files())
        .containsExactly(
            FileCopy.of(
                FileKind.STATISTICS,
                SRC + "/metadata/stats-2.puffin",
                DST + "/metadata/stats-2.puffin",
                "stats-2.puffin".length()));
  }

  @Test
  void anEntryTheReplicaHoldsAlreadyIsNotCopiedAgain() {
    MetadataJson source = table();
    entry(source, "partition-statistics", 1, "partition-stats-1.parquet");
    MetadataJson replica = MetadataJson.table(2, DST).commit(1, null, 100);
    entry(replica, "partition-statistics", 1, "partition-stats-1.parquet");

    Merged merged = merge(replica.build(), source.build(), 1, 2);

    assertThat(merged.paths("partition-statistics"))
        .containsExactly(DST + "/metadata/partition-stats-1.parquet");
    assertThat(merged.files()).isEmpty();
  }

  @Test
  void theReplicasEntryOfASnapshotOnlyItKeepsStaysWhileTheSourcesRemovalIsFollowed() {
    MetadataJson replica = MetadataJson.table(2, DST).commit(1, null, 100).commit(2, 1L, 200);
    entry(replica, "statistics", 1, "stats-1.puffin");
    entry(replica, "statistics", 2, "stats-2.puffin");
    MetadataJson source = table().dropSnapshot(1);
    source.json.putArray("statistics");

    Merged merged = merge(replica.build(), source.build(), 1, 2);

    assertThat(merged.paths("statistics")).containsExactly(DST + "/metadata/stats-1.puffin");
    assertThat(merged.files()).isEmpty();
  }

  @Test
  void aFieldTheSourceLacksIsLeftOutWhenEmptyAndKeptWhenEmptyInTheSource() {
    MetadataJson source = table();
    source.json.putArray("partition-statistics");

    ObjectNode out = merge(null, source.build(), 1, 2).out();

    assertThat(out.has("statistics")).isFalse();
    JsonNode partitionStatistics = out.get("partition-statistics");
    assertThat(partitionStatistics.isArray()).isTrue();
    assertThat(partitionStatistics).isEmpty();
  }
}
