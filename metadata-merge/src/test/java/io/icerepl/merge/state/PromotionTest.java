package io.icerepl.merge.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromotionTest {
  private final Promotion promotion =
      new Promotion(1, 1_000L, "now", "00003-abc.metadata.json", 900L, 4);

  @Test
  void aSourceStillAtThePromotedVersionIsFencedAsPromoted() {
    assertThat(promotion.fence("s3://src/wh/db/t/metadata/00003-abc.metadata.json"))
        .isEqualTo(Promotion.Fence.PROMOTED);
  }

  @Test
  void aSourcePastThePromotedVersionIsTheOldPrimaryWritingAfterFailover() {
    assertThat(promotion.fence("s3://src/wh/db/t/metadata/00004-def.metadata.json"))
        .isEqualTo(Promotion.Fence.OLD_PRIMARY_WROTE);
  }
}
