package io.icerepl.merge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.state.ReplicaState;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SourceComparisonTest {

  @Test
  void aRefTheReplicasRetentionDroppedIsMissingOnlyOnceTheSourceMovedIt() {
    TableMetadata replica = metadata("/r", "{\"main\": 2}", 1, 2);
    ReplicaState dropped = ReplicaState.builder().droppedRefs(Map.of("old", 1L)).build();

    SourceComparison.Result stillThere =
        SourceComparison.compare(
            metadata("/s", "{\"main\": 2, \"old\": 1}", 1, 2), replica, dropped);
    SourceComparison.Result moved =
        SourceComparison.compare(
            metadata("/s", "{\"main\": 2, \"old\": 2}", 1, 2), replica, dropped);

    assertThat(stillThere.problems()).isEmpty();
    assertThat(stillThere.checked()).isEqualTo(4);
    assertThat(moved.problems())
        .containsExactly(
            "ref old: points at snapshot 2 on the source, the replica has no such ref");
  }

  @Test
  void aSnapshotTheReplicaExpiredIsNotMissingButOneItNeverHadIs() {
    TableMetadata source = metadata("/s", "{\"main\": 3}", 1, 2, 3);
    TableMetadata replica = metadata("/r", "{\"main\": 3}", 3);

    SourceComparison.Result result =
        SourceComparison.compare(
            source, replica, ReplicaState.builder().expiredSnapshotIds(Set.of(1L)).build());

    assertThat(result.problems())
        .containsExactly(
            "snapshot 2: the source holds it (sequence number 2), the replica does not and did not"
                + " expire it");
  }

  private static TableMetadata metadata(String location, String refs, long... snapshotIds) {
    StringBuilder snapshots = new StringBuilder();
    for (long id : snapshotIds) {
      if (snapshots.length() > 0) {
        snapshots.append(',');
      }
      snapshots.append(
          String.format(
              "{\"snapshot-id\": %d, \"sequence-number\": %d, \"timestamp-ms\": %d,"
                  + " \"manifest-list\": \"%s/metadata/snap-%d.avro\"}",
              id, id, 1000 + id, location, id));
    }
    String json =
        "{\"format-version\": 2, \"table-uuid\": \"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
            + " \"location\": \""
            + location
            + "\", \"last-sequence-number\": 3, \"last-updated-ms\": 2000, \"last-column-id\": 1,"
            + " \"current-schema-id\": 0, \"schemas\": [{\"type\": \"struct\", \"schema-id\": 0,"
            + " \"fields\": [{\"id\": 1, \"name\": \"id\", \"required\": true, \"type\": \"long\"}]}],"
            + " \"default-spec-id\": 0, \"partition-specs\": [{\"spec-id\": 0, \"fields\": []}],"
            + " \"last-partition-id\": 999, \"default-sort-order-id\": 0, \"sort-orders\":"
            + " [{\"order-id\": 0, \"fields\": []}], \"current-snapshot-id\": "
            + snapshotIds[snapshotIds.length - 1]
            + ", \"snapshots\": ["
            + snapshots
            + "], \"refs\": "
            + refs(refs)
            + "}";
    return TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), location);
  }

  /** {@code {"name": id}} as spec refs, all branches. */
  private static String refs(String byName) {
    return byName.replaceAll(
        "\"(\\w+)\": (\\d+)", "\"$1\": {\"snapshot-id\": $2, \"type\": \"branch\"}");
  }
}
