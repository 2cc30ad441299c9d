package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLayout;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The merged refs: retention's dropped refs, kept tags, and refs that must name held snapshots. */
class RefsMergeTest {
  private static final String SOURCE_FILE = "s3://source/db/t/metadata/v3.metadata.json";

  /** Snapshots 1 and 2 on main, and a branch "audit" at 1. */
  private static TableMetadata source() {
    MetadataJson table = MetadataJson.table(2, "s3://source/db/t").commit(1, null, 10);
    table
        .commit(2, 1L, 20)
        .json
        .with("refs")
        .putObject("audit")
        .put("snapshot-id", 1)
        .put("type", "branch");
    return table.build();
  }

  /** The refs merged into the source's fields, with what the request adds. */
  private static ObjectNode merged(UnaryOperator<MergeRequest.Builder> with) {
    TableMetadata source = source();
    ObjectNode out = source.toBuilder().fields();
    String target = "s3://replica/db/t";
    MergeRequest.Builder request = MergeRequest.builder().source(source, SOURCE_FILE);
    request.targetLocation(target).mapping(TableLayout.mapping(source, target, List.of()));
    RefsMerge.merge(out, with.apply(request).build());
    return out;
  }

  @Test
  void aDroppedRefStaysDroppedWhileTheSourceStillNamesTheSameSnapshot() {
    ObjectNode out = merged(r -> r.droppedRefs(Map.of("audit", 1L, "main", 2L)));

    assertThat(out.get("refs").has("audit")).isFalse();
    assertThat(out.get("refs").has("main")).as("main is never dropped").isTrue();
  }

  @Test
  void aDroppedRefTheSourceMovedComesBack() {
    ObjectNode out = merged(r -> r.droppedRefs(Map.of("audit", 2L)));

    assertThat(out.get("refs").get("audit").get("snapshot-id").asLong()).isEqualTo(1);
  }

  @Test
  void aKeptRefBecomesATagNoExpiryDropsForItsAge() {
    ObjectNode out = merged(r -> r.keptRefs(Map.of("orphan", 7L)));

    ObjectNode tag = (ObjectNode) out.get("refs").get("orphan");
    assertThat(tag.get("snapshot-id").asLong()).isEqualTo(7);
    assertThat(tag.get("type").asText()).isEqualTo("tag");
    assertThat(tag.get("max-ref-age-ms").asLong()).isEqualTo(Long.MAX_VALUE);
    assertThat(RefsMerge.protectedSnapshotIds(out)).containsExactlyInAnyOrder(1L, 2L, 7L);
  }

  @Test
  void aCutTagNamedLikeASourceRefElsewhereIsAConflict() {
    assertThatThrownBy(() -> merged(r -> r.cutTags(Map.of("audit", 2L))))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot replicate table metadata "
                + SOURCE_FILE
                + ": its ref 'audit' names snapshot 1, but the replica keeps a group's cut tag of"
                + " that name at snapshot 2");
  }

  @Test
  void aRefNamingASnapshotTheReplicaDoesNotHoldIsRefused() {
    ObjectNode out = merged(r -> r.keptRefs(Map.of("orphan", 7L)));
    SnapshotIdIndex held = SnapshotIdIndex.of(source().snapshots());

    assertThatThrownBy(() -> RefsMerge.checkHeld(out, held, SOURCE_FILE))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot replicate table metadata "
                + SOURCE_FILE
                + ": ref 'orphan' names snapshot 7, which is not among its snapshots");
  }
}
