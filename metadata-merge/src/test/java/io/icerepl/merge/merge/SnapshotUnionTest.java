package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLayout;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The merged snapshots: order, expiry, and a reused snapshot-id refused. */
class SnapshotUnionTest {
  private static final String SRC = "s3://source/db/t";
  private static final String SOURCE_FILE = SRC + "/metadata/v5.metadata.json";
  private static final String DST = "s3://replica/db/t";

  private static SnapshotUnion union(
      MetadataJson source, TableMetadata replica, Set<Long> expired, Set<Long> protectedIds) {
    TableMetadata metadata = source.build();
    MergeRequest.Builder request =
        MergeRequest.builder()
            .source(metadata, SOURCE_FILE)
            .targetLocation(DST)
            .mapping(TableLayout.mapping(metadata, DST, List.of()))
            .expiredSnapshotIds(expired);
    if (replica != null) {
      request.replica(replica, DST + "/metadata/v2.metadata.json");
    }
    return SnapshotUnion.of(request.build(), replica, protectedIds);
  }

  private static List<Long> ids(List<Snapshot> snapshots) {
    return snapshots.stream().map(Snapshot::snapshotId).toList();
  }

  @Test
  void theReplicasSnapshotsComeFirstThenTheSourcesNewOnesWithMappedManifestLists() {
    MetadataJson replica = MetadataJson.table(2, DST).addSnapshot(7, null, 50);
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);

    SnapshotUnion union = union(source, replica.build(), Set.of(), Set.of());

    assertThat(ids(union.list())).containsExactly(7L, 1L, 2L);
    assertThat(union.ids().position(2)).isEqualTo(2);
    assertThat(union.added())
        .extracting(MergeResult.AddedSnapshot::snapshotId)
        .containsExactly(1L, 2L);
    assertThat(union.list().get(1).manifestList()).contains(DST + "/metadata/snap-1.avro");
  }

  @Test
  void aSnapshotTheReplicaHoldsIsNotAddedAgain() {
    TableMetadata replica = MetadataJson.table(2, DST).commit(1, null, 100).build();
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);

    SnapshotUnion union = union(source, replica, Set.of(), Set.of());

    assertThat(ids(union.list())).containsExactly(1L, 2L);
    assertThat(union.list().get(0)).isSameAs(replica.snapshots().get(0));
    assertThat(union.added()).extracting(MergeResult.AddedSnapshot::snapshotId).containsExactly(2L);
  }

  @Test
  void aSnapshotTheReplicaExpiredStaysOutUnlessARefNamesIt() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);

    assertThat(ids(union(source, null, Set.of(1L, 2L), Set.of(2L)).list())).containsExactly(2L);
  }

  @Test
  void aReusedSnapshotIdWithAnotherTimestampIsAConflictNamingBothValues() {
    TableMetadata replica = MetadataJson.table(2, DST).commit(1, null, 100).build();
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 150);

    assertThatThrownBy(() -> union(source, replica, Set.of(), Set.of()))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot merge snapshot 1 of table metadata "
                + SOURCE_FILE
                + ": the replica holds a different snapshot with the same snapshot-id"
                + " (timestamp-ms 100 vs 150)");
  }
}
