package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.failover.PromotedMetadata;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.group.MainAt;
import io.icerepl.merge.merge.MergeRequest;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.RetentionPlanner;
import io.icerepl.merge.retention.RetentionPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each place that walks a snapshot's parents, handed a history whose parents loop: none ever walks
 * it (before, the group cut and the consistent promotion walked forever, the others stopped on
 * guards of their own), because the metadata is refused where it is read. The timeout only turns a
 * walk that never ends into a failure.
 */
class ParentWalksTest {
  private static final Duration GUARD = Duration.ofSeconds(20);
  private static final long DAY = 24L * 60 * 60 * 1000;

  @TempDir Path dir;

  private IcebergHistory history;
  private long first;
  private long second;
  private long onSide;

  /** main: first, second; side: first, onSide; the tag "cut" on onSide; then first → second. */
  @BeforeEach
  void history() {
    history = IcebergHistory.create(dir.resolve("t"), 2, Map.of());
    first = history.append();
    second = history.append();
    history.table.manageSnapshots().createBranch("side", first).commit();
    onSide = history.appendTo("side");
    history.table.manageSnapshots().createTag("cut", onSide).commit();
  }

  private TableMetadata looped() {
    return history.readEdited(json -> IcebergHistory.setParent(json, first, second));
  }

  private void refusedBeforeAnyWalk(Consumer<TableMetadata> walk) {
    assertThatThrownBy(() -> assertTimeoutPreemptively(GUARD, () -> walk.accept(looped())))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read table metadata v9.metadata.json: snapshots "
                + first
                + " and "
                + second
                + " name each other as parent (a cycle)");
  }

  private long firstCommitMs() {
    return history.table.snapshot(first).timestampMillis();
  }

  /** The group cut's main-at-a-moment, asked for a moment before the log begins. */
  @Test
  void theGroupCutsMainAtAMoment() {
    refusedBeforeAnyWalk(metadata -> MainAt.snapshotAt(metadata, firstCommitMs() - 1));
  }

  /** promote --consistent: main moved back to the cut, the snapshots after it kept on a branch. */
  @Test
  void theConsistentPromotionsSnapshotsAfterTheCut() {
    refusedBeforeAnyWalk(
        metadata ->
            PromotedMetadata.of(metadata, "v9.metadata.json", 2, firstCommitMs() + DAY, "cut"));
  }

  /** The fence: what the replica holds that the source lacks. */
  @Test
  void theFencesSnapshotsWrittenAfterThePromotion() {
    TableMetadata empty = IcebergHistory.create(dir.resolve("empty"), 2, Map.of()).read();
    refusedBeforeAnyWalk(metadata -> Promotion.writtenAfter(empty, metadata));
  }

  /** Retention: the snapshots a branch keeps. */
  @Test
  void retentionsBranchWalk() {
    refusedBeforeAnyWalk(
        metadata ->
            RetentionPlanner.plan(
                metadata,
                new RetentionPolicy(1, DAY, Long.MAX_VALUE),
                ExpireOptions.defaults(),
                firstCommitMs() + DAY));
  }

  /** The merge: the snapshots only a kept tag (a fail-back's orphans) reaches. */
  @Test
  void theMergesKeptRefs() {
    TableMetadata source = history.read();
    String replica = dir.resolve("replica").toUri().toString();
    refusedBeforeAnyWalk(
        metadata ->
            MetadataMerge.merge(
                MergeRequest.builder()
                    .source(source, history.metadataFile())
                    .replica(metadata, replica + "/metadata/v1.metadata.json")
                    .targetLocation(replica)
                    .mapping(TableLayout.mapping(source, replica, List.of()))
                    .commitTimeMs(firstCommitMs() + DAY)
                    .keptRefs(Map.of("cut", onSide))
                    .build()));
  }
}
