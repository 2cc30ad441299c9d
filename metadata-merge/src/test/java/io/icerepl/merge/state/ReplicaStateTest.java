package io.icerepl.merge.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.retention.ExpiredSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplicaStateTest {
  private static final Promotion PROMOTION =
      new Promotion(1, 1_000L, "now", "00003-abc.metadata.json", 900L, 4);

  private static ReplicaState full() {
    return ReplicaState.builder()
        .expiredSnapshotIds(Set.of(1L))
        .droppedRefs(Map.of("dropped", 2L))
        .pendingDeletes(List.of(new ExpiredSnapshot(1, null, List.of(), List.of())))
        .lastCommit(new ReplicaState.LastCommit(3, "t3", "t2"))
        .sourcePrefixes(List.of(new PathMapping.Prefix("s3://b/t", "s3://r/t")))
        .replacedStatisticsFiles(List.of("s3://r/t/metadata/s.puffin"))
        .keptRefs(Map.of("kept", 4L))
        .mirrorPrefixes(List.of(new PathMapping.Prefix("s3://m/t", "s3://r/t/m")))
        .cutTags(Map.of("cut", 5L))
        .knownCurrentFromMs(6_000L)
        .group(
            new GroupMembership(
                "g", "cut", List.of("s3://r/t"), Duration.ofSeconds(1), Duration.ZERO))
        .build();
  }

  @Test
  void eachSetterFillsTheComponentOfItsName() {
    ReplicaState state = full();

    assertThat(state.expiredSnapshotIds()).containsExactly(1L);
    assertThat(state.droppedRefs()).containsExactlyEntriesOf(Map.of("dropped", 2L));
    assertThat(state.pendingDeletes()).extracting(ExpiredSnapshot::snapshotId).containsExactly(1L);
    assertThat(state.lastCommit().version()).isEqualTo(3);
    assertThat(state.sourcePrefixes())
        .extracting(PathMapping.Prefix::source)
        .containsExactly("s3://b/t");
    assertThat(state.replacedStatisticsFiles()).containsExactly("s3://r/t/metadata/s.puffin");
    assertThat(state.promotion()).isNull();
    assertThat(state.keptRefs()).containsExactlyEntriesOf(Map.of("kept", 4L));
    assertThat(state.mirrorPrefixes())
        .extracting(PathMapping.Prefix::source)
        .containsExactly("s3://m/t");
    assertThat(state.cutTags()).containsExactlyEntriesOf(Map.of("cut", 5L));
    assertThat(state.knownCurrentFromMs()).isEqualTo(6_000L);
    assertThat(state.group().name()).isEqualTo("g");
  }

  @Test
  void aBuilderFromAStateBuildsTheSameStateAndAnEmptyBuilderTheEmptyOne() {
    assertThat(full().toBuilder().build()).isEqualTo(full());
    assertThat(ReplicaState.builder().build())
        .isEqualTo(ReplicaState.empty())
        .satisfies(
            s -> {
              assertThat(s.cutTags()).isEmpty();
              assertThat(s.lastCommit()).isNull();
              assertThat(s.knownCurrentFromMs()).isNull();
            });
  }

  @Test
  void aPromotionForgetsSinceWhenTheReplicaWasKnownCurrentAndChangesNothingElse() {
    ReplicaState promoted = full().withPromotion(PROMOTION);

    assertThat(promoted.promotion()).isEqualTo(PROMOTION);
    assertThat(promoted.knownCurrentFromMs()).isNull();
    assertThat(promoted.toBuilder().promotion(null).knownCurrentFromMs(6_000L).build())
        .isEqualTo(full());
    assertThat(full().withPromotion(null)).isEqualTo(full());
  }

  @Test
  void knownCurrentNeverMovesBack() {
    ReplicaState state = full();

    assertThat(state.withKnownCurrentFrom(5_000L)).isSameAs(state);
    assertThat(state.withKnownCurrentFrom(6_000L)).isSameAs(state);
    assertThat(state.withKnownCurrentFrom(7_000L).knownCurrentFromMs()).isEqualTo(7_000L);
    assertThat(state.withoutKnownCurrent().withKnownCurrentFrom(1L).knownCurrentFromMs())
        .isEqualTo(1L);
  }
}
