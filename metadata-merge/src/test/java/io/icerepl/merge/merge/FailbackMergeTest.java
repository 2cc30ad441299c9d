package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.failover.FailbackLines;
import io.icerepl.merge.failover.Orphans;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLayout;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fail-back: the promoted table (a former replica at {@code PROMOTED}) merged back into the
 * original location, whose old source committed twice after its last replicated version.
 */
class FailbackMergeTest {
  private static final String ORIGINAL = "s3://source/db/t";
  private static final String PROMOTED = "s3://replica/db/t";
  private static final String ORIGINAL_FILE = ORIGINAL + "/metadata/v5.metadata.json";
  private static final String PROMOTED_FILE = PROMOTED + "/metadata/v4.metadata.json";
  private static final long GAP = 1_048_576L;
  // 2026-11-30T18:00:00Z
  private static final long FAILBACK_MS = 1_796_061_600_000L;

  /**
   * Snapshots 1, 2 replicated; 10 on main and 11 on branch audit written after, never replicated.
   */
  private static MetadataJson original(int formatVersion) {
    MetadataJson original =
        MetadataJson.table(formatVersion, ORIGINAL).commit(1, null, 100).commit(2, 1L, 200);
    original.commit(10, 2L, 500).addSnapshot(11, 10L, 600);
    original.json.with("refs").putObject("audit").put("snapshot-id", 11).put("type", "branch");
    return original;
  }

  /** Snapshots 1, 2 as replicated, the promotion's sequence-number gap, then 20 and 21. */
  private static MetadataJson promoted(int formatVersion) {
    MetadataJson promoted =
        MetadataJson.table(formatVersion, PROMOTED).commit(1, null, 100).commit(2, 1L, 200);
    promoted.json.put("last-sequence-number", 2 + GAP);
    return promoted.commit(20, 2L, 700).commit(21, 20L, 800);
  }

  private static Orphans orphans(TableMetadata promoted, TableMetadata original) {
    return Orphans.find(promoted, original, Set.of(), "failback-orphan", FAILBACK_MS);
  }

  private static MergeResult failback(
      TableMetadata promoted, TableMetadata replica, String replicaFile, Map<String, Long> kept) {
    return MetadataMerge.merge(
        MergeRequest.builder()
            .source(promoted, PROMOTED_FILE)
            .replica(replica, replicaFile)
            .targetLocation(ORIGINAL)
            .mapping(TableLayout.mapping(promoted, ORIGINAL, List.of()))
            .commitTimeMs(FAILBACK_MS)
            .keptRefs(kept)
            .build());
  }

  @Test
  void orphansAreTheOriginalsSnapshotsThePromotedTableNeitherHoldsNorExpired() {
    TableMetadata original = original(2).addSnapshot(12, 2L, 650).build();
    TableMetadata promoted = promoted(2).dropSnapshot(1).build();

    Orphans orphans = Orphans.find(promoted, original, Set.of(1L), "failback-orphan", FAILBACK_MS);

    assertThat(orphans.snapshotIds()).containsExactly(10L, 11L, 12L);
    assertThat(orphans.tags())
        .containsExactly(
            new Orphans.OrphanTag("failback-orphan-20261130T180000Z", "main", 10),
            new Orphans.OrphanTag("failback-orphan-20261130T180000Z-audit", "audit", 11));
  }

  @Test
  void aTagNameAlreadyInUseTakesTheNextFreeNumber() {
    MetadataJson promoted = promoted(2);
    promoted
        .json
        .with("refs")
        .putObject("failback-orphan-20261130T180000Z")
        .put("snapshot-id", 21)
        .put("type", "tag");
    promoted
        .json
        .with("refs")
        .putObject("failback-orphan-20261130T180000Z-2")
        .put("snapshot-id", 21)
        .put("type", "tag");

    Orphans orphans = orphans(promoted.build(), original(2).build());

    assertThat(orphans.tags())
        .containsExactly(
            new Orphans.OrphanTag("failback-orphan-20261130T180000Z-3", "main", 10),
            new Orphans.OrphanTag("failback-orphan-20261130T180000Z-audit", "audit", 11));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void theFailbackCommitHoldsThePromotedHistoryAndKeepsTheOrphansUnderTags(int formatVersion) {
    TableMetadata promoted = promoted(formatVersion).build();
    TableMetadata original = original(formatVersion).build();
    Orphans orphans = orphans(promoted, original);
    TableMetadata joined =
        FailbackLines.join(promoted, PROMOTED_FILE, original, ORIGINAL_FILE, orphans);

    MergeResult result = failback(promoted, joined, ORIGINAL_FILE, orphans.refs());

    TableMetadata out = result.metadata();
    assertThat(out.snapshots())
        .extracting(Snapshot::snapshotId)
        .containsExactlyInAnyOrder(1L, 2L, 10L, 11L, 20L, 21L);
    assertThat(out.refs())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "main", 21L,
                "failback-orphan-20261130T180000Z", 10L,
                "failback-orphan-20261130T180000Z-audit", 11L));
    assertThat(out.json().at("/refs/failback-orphan-20261130T180000Z/type").asText())
        .isEqualTo("tag");
    // no expiry may drop them for their age
    assertThat(out.json().at("/refs/failback-orphan-20261130T180000Z/max-ref-age-ms").asLong())
        .isEqualTo(Long.MAX_VALUE);
    assertThat(out.currentSnapshotId()).contains(21L);
    // the orphans were never current on the failed-back table's main history
    assertThat(out.snapshotLog())
        .extracting(TableMetadata.SnapshotLogEntry::snapshotId)
        .containsExactly(1L, 2L, 20L, 21L);
    assertThat(out.snapshot(20).orElseThrow().manifestList())
        .contains(ORIGINAL + "/metadata/snap-20.avro");
    assertThat(out.snapshot(10).orElseThrow().manifestList())
        .contains(ORIGINAL + "/metadata/snap-10.avro");
    assertThat(result.addedSnapshots())
        .extracting(MergeResult.AddedSnapshot::snapshotId)
        .containsExactly(20L, 21L);
    assertThat(out.metadataLog())
        .extracting(TableMetadata.LogEntry::metadataFile)
        .containsExactly(ORIGINAL_FILE);
    assertThat(out.properties()).containsEntry(ReplicaProperties.READ_ONLY, "true");
  }

  @Test
  void theHighestIdsOfBothLinesCarryOver() {
    MetadataJson promoted = promoted(3);
    promoted.json.put("next-row-id", 500).put("last-column-id", 3).put("last-partition-id", 1000);
    MetadataJson original = original(3);
    original.json.put("next-row-id", 900).put("last-column-id", 5).put("last-partition-id", 999);
    Orphans orphans = orphans(promoted.build(), original.build());

    TableMetadata out =
        failback(promoted.build(), original.build(), ORIGINAL_FILE, orphans.refs()).metadata();

    assertThat(out.json().get("next-row-id").asLong()).isEqualTo(900);
    assertThat(out.json().get("last-column-id").asLong()).isEqualTo(5);
    assertThat(out.json().get("last-partition-id").asLong()).isEqualTo(1000);
    assertThat(out.lastSequenceNumber()).isEqualTo(4 + GAP);
  }

  @Test
  void aLaterRunCarriesNewCommitsAndKeepsTheOrphansAndTheirTags() {
    MetadataJson promotedLine = promoted(2);
    TableMetadata original = original(2).build();
    Orphans orphans = orphans(promotedLine.build(), original);
    TableMetadata failedBack =
        failback(promotedLine.build(), original, ORIGINAL_FILE, orphans.refs()).metadata();

    promotedLine.commit(22, 21L, 900);
    TableMetadata out =
        failback(
                promotedLine.build(),
                failedBack,
                ORIGINAL + "/metadata/v6.metadata.json",
                orphans.refs())
            .metadata();

    assertThat(out.snapshots())
        .extracting(Snapshot::snapshotId)
        .containsExactlyInAnyOrder(1L, 2L, 10L, 11L, 20L, 21L, 22L);
    assertThat(out.refs()).containsAllEntriesOf(orphans.refs()).containsEntry("main", 22L);
    assertThat(out.snapshotLog())
        .extracting(TableMetadata.SnapshotLogEntry::snapshotId)
        .containsExactly(1L, 2L, 20L, 21L, 22L);
  }

  @Test
  void aSourceRefNamedLikeAKeptTagElsewhereIsRefused() {
    MetadataJson promoted = promoted(2);
    TableMetadata original = original(2).build();
    Orphans orphans = orphans(promoted.build(), original);
    promoted
        .json
        .with("refs")
        .putObject("failback-orphan-20261130T180000Z")
        .put("snapshot-id", 20)
        .put("type", "tag");

    assertThatThrownBy(() -> failback(promoted.build(), original, ORIGINAL_FILE, orphans.refs()))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot replicate table metadata "
                + PROMOTED_FILE
                + ": its ref 'failback-orphan-20261130T180000Z' names snapshot 20, but the replica"
                + " keeps a tag of that name at snapshot 10");
  }

  @Test
  void anOrphanSharingASequenceNumberWithAPromotedSnapshotIsRefused() {
    // promoted without the gap: its first write reused sequence number 3, as orphan 10 did
    MetadataJson promoted =
        MetadataJson.table(2, PROMOTED).commit(1, null, 100).commit(2, 1L, 200).commit(20, 2L, 700);
    TableMetadata original = original(2).build();
    Orphans orphans = orphans(promoted.build(), original);

    assertThatThrownBy(
            () ->
                FailbackLines.join(
                    promoted.build(), PROMOTED_FILE, original, ORIGINAL_FILE, orphans))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot fail back table metadata "
                + ORIGINAL_FILE
                + ": its orphan snapshot 10 and snapshot 20 of the promoted table's "
                + PROMOTED_FILE
                + " share sequence-number 3 (the table was not promoted with a sequence-number"
                + " gap)");
  }

  @Test
  void overlappingRowIdRangesAreRefused() {
    MetadataJson promoted = promoted(3);
    rowIds(promoted, 20, 100, 50);
    MetadataJson original = original(3);
    rowIds(original, 10, 120, 10);
    rowIds(original, 11, 130, 10);
    TableMetadata originalMetadata = original.build();
    Orphans orphans = orphans(promoted.build(), originalMetadata);

    assertThatThrownBy(
            () ->
                FailbackLines.join(
                    promoted.build(), PROMOTED_FILE, originalMetadata, ORIGINAL_FILE, orphans))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot fail back table metadata "
                + ORIGINAL_FILE
                + ": its orphan snapshot 10 and snapshot 20 of the promoted table's "
                + PROMOTED_FILE
                + " assign the same row ids (from 120; the table was not promoted with a row-id"
                + " gap)");

    // with the promotion's row-id gap the ranges are apart
    rowIds(promoted, 20, 100 + (1L << 40), 50);
    assertThat(
            FailbackLines.join(
                promoted.build(), PROMOTED_FILE, originalMetadata, ORIGINAL_FILE, orphans))
        .isSameAs(originalMetadata);
  }

  @Test
  void aPartitionSpecIdBothLinesAddedDifferentlyIsRefused() {
    MetadataJson promoted = promoted(2);
    addIdentitySpec(promoted, "id");
    MetadataJson original = original(2);
    addIdentitySpec(original, "other");
    TableMetadata originalMetadata = original.build();
    Orphans orphans = orphans(promoted.build(), originalMetadata);

    assertThatThrownBy(
            () ->
                FailbackLines.join(
                    promoted.build(), PROMOTED_FILE, originalMetadata, ORIGINAL_FILE, orphans))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot fail back table metadata "
                + ORIGINAL_FILE
                + ": its partition spec 1 differs from partition spec 1 of the promoted table's "
                + PROMOTED_FILE
                + " (both lines added one with the same spec-id, which data files name and cannot"
                + " change)");
  }

  @Test
  void anOrphanSchemaWhoseIdThePromotedTableReusedGetsANewIdItsSnapshotsFollow() {
    MetadataJson promoted = promoted(2);
    promoted.json.withArray("schemas").add(MetadataJson.schema(1, "id", "string"));
    MetadataJson original = original(2);
    original.json.withArray("schemas").add(MetadataJson.schema(1, "name", "string"));
    original.json.put("current-schema-id", 1);
    snapshotOf(original, 11).put("schema-id", 1);
    TableMetadata promotedMetadata = promoted.build();
    TableMetadata originalMetadata = original.build();
    Orphans orphans = orphans(promotedMetadata, originalMetadata);

    TableMetadata joined =
        FailbackLines.join(
            promotedMetadata, PROMOTED_FILE, originalMetadata, ORIGINAL_FILE, orphans);
    TableMetadata out =
        failback(promotedMetadata, joined, ORIGINAL_FILE, orphans.refs()).metadata();

    assertThat(out.snapshot(11).orElseThrow().json().get("schema-id").asInt()).isEqualTo(2);
    assertThat(out.snapshot(10).orElseThrow().json().get("schema-id").asInt()).isZero();
    assertThat(out.json().get("schemas"))
        .containsExactly(
            MetadataJson.schema(0, "id", "long"),
            MetadataJson.schema(2, "name", "string"),
            MetadataJson.schema(1, "id", "string"));
  }

  private static ObjectNode snapshotOf(MetadataJson table, long id) {
    for (var node : table.json.withArray("snapshots")) {
      if (node.get("snapshot-id").asLong() == id) {
        return (ObjectNode) node;
      }
    }
    throw new AssertionError("no snapshot " + id);
  }

  private static void rowIds(MetadataJson table, long snapshotId, long first, long added) {
    snapshotOf(table, snapshotId).put("first-row-id", first).put("added-rows", added);
  }

  private static void addIdentitySpec(MetadataJson table, String name) {
    ObjectNode spec = table.json.withArray("partition-specs").addObject().put("spec-id", 1);
    spec.putArray("fields")
        .addObject()
        .put("source-id", 1)
        .put("field-id", 1000)
        .put("name", name)
        .put("transform", "identity");
  }
}
