package io.icerepl.merge.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.merge.MetadataJson;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadata;
import org.junit.jupiter.api.Test;

class PromotionTest {
  private static final String READ_ONLY = ReplicaProperties.READ_ONLY;
  private static final String REPLICA_FILE = "s3://r/wh/t/metadata/v7.metadata.json";
  private static final String SOURCE_HEAD = "s3://src/wh/t/metadata/v12.metadata.json";

  private final Promotion promotion =
      new Promotion(1, 1_000L, "now", "00003-abc.metadata.json", 900L, 4);

  /** The promoted replica: written on after its promotion, last at 5_000. */
  private final MetadataJson replica =
      MetadataJson.table(2, "s3://r/wh/t")
          .commit(1, null, 2_000L)
          .commit(2, 1L, 3_000L)
          .commit(3, 2L, 5_000L)
          .property(ReplicaProperties.EPOCH, "1");

  /** The failed-back original, holding all the replica holds, promoted again at epoch 2. */
  private final MetadataJson switchedBack =
      replica.copy().commit(4, 3L, 6_000L).property(ReplicaProperties.EPOCH, "2");

  /** The original's promotion, from the replica's current version {@link #REPLICA_FILE}. */
  private final Promotion originalPromotion =
      new Promotion(2, 5_500L, "safe", "v7.metadata.json", 5_000L, 9);

  @Test
  void aSourceStillAtThePromotedVersionIsFencedAsPromoted() {
    assertThat(
            promotion.fence(
                "s3://src/wh/db/t/metadata/00003-abc.metadata.json",
                MetadataJson.table(2, "s3://src/wh/db/t").commit(1, null, 2_000L).build(),
                null,
                REPLICA_FILE,
                replica.build()))
        .isEqualTo(Promotion.Fence.PROMOTED);
  }

  @Test
  void aSourcePastThePromotedVersionIsTheOldPrimaryWritingAfterFailover() {
    assertThat(
            promotion.fence(
                "s3://src/wh/db/t/metadata/00004-def.metadata.json",
                MetadataJson.table(2, "s3://src/wh/db/t").commit(9, null, 2_000L).build(),
                null,
                REPLICA_FILE,
                replica.build()))
        .isEqualTo(Promotion.Fence.OLD_PRIMARY_WROTE);
  }

  @Test
  void anOldPrimaryCarryingTheSameEpochIsNoSwitchBack() {
    TableMetadata sameEpoch = switchedBack.copy().property(ReplicaProperties.EPOCH, "1").build();
    assertThat(
            promotion.fence(
                SOURCE_HEAD, sameEpoch, originalPromotion, REPLICA_FILE, replica.build()))
        .isEqualTo(Promotion.Fence.OLD_PRIMARY_WROTE);
  }

  @Test
  void theOriginalFailedBackIntoAndWrittenOnlyByItsReplicatorIsFailedBack() {
    // the fail-back's version: the promoted history, read-only, at the promotion's epoch
    TableMetadata failedBack =
        switchedBack
            .copy()
            .property(ReplicaProperties.EPOCH, "1")
            .property(READ_ONLY, "true")
            .build();

    assertThat(promotion.fence(SOURCE_HEAD, failedBack, true))
        .isEqualTo(Promotion.Fence.FAILED_BACK);
    assertThat(promotion.fence(SOURCE_HEAD, failedBack, false))
        .as("a commit on the failed-back original since its replicator's last")
        .isEqualTo(Promotion.Fence.OLD_PRIMARY_WROTE);
  }

  @Test
  void onlyAReadOnlyReplicaOfThePromotionsEpochIsFailedBack() {
    TableMetadata writable = switchedBack.copy().property(ReplicaProperties.EPOCH, "1").build();
    TableMetadata earlierEpoch =
        switchedBack
            .copy()
            .property(ReplicaProperties.EPOCH, "0")
            .property(READ_ONLY, "true")
            .build();
    TableMetadata neverPromoted =
        MetadataJson.table(2, "s3://src/wh/db/t")
            .commit(9, null, 2_000L)
            .property(READ_ONLY, "true")
            .build();

    for (TableMetadata source : java.util.List.of(writable, earlierEpoch, neverPromoted)) {
      assertThat(promotion.fence(SOURCE_HEAD, source, true))
          .isEqualTo(Promotion.Fence.OLD_PRIMARY_WROTE);
    }
    assertThat(promotion.fence("s3://src/wh/db/t/metadata/00003-abc.metadata.json", writable, true))
        .isEqualTo(Promotion.Fence.PROMOTED);
  }

  @Test
  void theFailedBackLinePromotedFromTheReplicaHeadEndsThePromotion() {
    assertThat(
            promotion.fence(
                SOURCE_HEAD,
                switchedBack.build(),
                originalPromotion,
                REPLICA_FILE,
                replica.build()))
        .isEqualTo(Promotion.Fence.SWITCHED_BACK);
  }

  @Test
  void aReplicaWrittenAfterTheLastFailbackDivergedAndNamesItsNewSnapshots() {
    TableMetadata written = replica.copy().commit(5, 3L, 6_500L).commit(6, 5L, 7_000L).build();

    assertThat(
            promotion.fence(
                SOURCE_HEAD,
                switchedBack.build(),
                originalPromotion,
                "s3://r/wh/t/metadata/v9.metadata.json",
                written))
        .isEqualTo(Promotion.Fence.DIVERGED_AFTER_PROMOTION);
    assertThat(Promotion.writtenAfter(switchedBack.build(), written)).containsExactly(5L, 6L);
  }

  @Test
  void aReplicaVersionOtherThanTheOneTheSourceWasPromotedFromDiverged() {
    // same snapshots, but the file (a property change) or its time differs
    assertThat(
            promotion.fence(
                SOURCE_HEAD,
                switchedBack.build(),
                originalPromotion,
                "s3://r/wh/t/metadata/v8.metadata.json",
                replica.build()))
        .isEqualTo(Promotion.Fence.DIVERGED_AFTER_PROMOTION);
    assertThat(
            promotion.fence(
                SOURCE_HEAD,
                switchedBack.build(),
                new Promotion(2, 5_500L, "safe", "v7.metadata.json", 4_999L, 9),
                REPLICA_FILE,
                replica.build()))
        .isEqualTo(Promotion.Fence.DIVERGED_AFTER_PROMOTION);
  }

  @Test
  void aHigherEpochSourceThatNeverRecordedItsPromotionOrLacksARefSnapshotDiverged() {
    assertThat(
            promotion.fence(SOURCE_HEAD, switchedBack.build(), null, REPLICA_FILE, replica.build()))
        .isEqualTo(Promotion.Fence.DIVERGED_AFTER_PROMOTION);

    MetadataJson tagged = replica.copy();
    tagged.json.with("refs").putObject("audit").put("snapshot-id", 2).put("type", "tag");
    MetadataJson withoutTwo = switchedBack.copy();
    withoutTwo.json.withArray("snapshots").remove(1);
    assertThat(
            promotion.fence(
                SOURCE_HEAD, withoutTwo.build(), originalPromotion, REPLICA_FILE, tagged.build()))
        .isEqualTo(Promotion.Fence.DIVERGED_AFTER_PROMOTION);
    assertThat(Promotion.writtenAfter(withoutTwo.build(), tagged.build())).containsExactly(2L);
  }
}
