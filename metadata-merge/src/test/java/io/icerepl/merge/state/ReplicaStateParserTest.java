package io.icerepl.merge.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.retention.ExpiredSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplicaStateParserTest {
  @Test
  void stateSurvivesARoundTrip() {
    ReplicaState state =
        ReplicaState.builder()
            .expiredSnapshotIds(Set.of(3L, 1L))
            .droppedRefs(Map.of("audit", 1L))
            .pendingDeletes(
                List.of(
                    new ExpiredSnapshot(
                        1,
                        "s3://r/t/metadata/snap-1.avro",
                        List.of(),
                        List.of("s3://r/t/metadata/s.puffin")),
                    new ExpiredSnapshot(3, null, List.of("s3://r/t/metadata/m.avro"), List.of())))
            .lastCommit(new ReplicaState.LastCommit(7, "t7", "t6"))
            .replacedStatisticsFiles(List.of("s3://r/t/metadata/old-stats.puffin"))
            .build();
    assertThat(ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json"))
        .isEqualTo(state);
  }

  @Test
  void sourcePrefixesSurviveARoundTripAndAStateWithoutThemReadsAsNone() {
    ReplicaState state =
        ReplicaState.empty()
            .withSourcePrefixes(
                List.of(
                    new PathMapping.Prefix("s3://b/wh/t", "s3://r/wh/t"),
                    new PathMapping.Prefix(
                        "s3://other/data", "s3://r/wh/t/data/other-data-1a2b3c4d")));
    assertThat(ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json"))
        .isEqualTo(state);

    byte[] before =
        "{\"state-version\": 1, \"expired-snapshot-ids\": [4]}".getBytes(StandardCharsets.UTF_8);
    assertThat(ReplicaStateParser.fromJson(before, "state.json").sourcePrefixes()).isEmpty();
  }

  @Test
  void mappedPrefixesSurviveARoundTripAccumulateAndAStateWithoutThemReadsAsNone() {
    PathMapping.Prefix data = new PathMapping.Prefix("s3://b/wh/t/data", "s3://data/t");
    PathMapping.Prefix manifests = new PathMapping.Prefix("s3://b/wh/t/metadata", "s3://m/t");
    ReplicaState state = ReplicaState.empty().withMappedPrefixes(List.of(data));
    ReplicaState read = ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json");

    assertThat(read).isEqualTo(state);
    assertThat(read.mappedPrefixes()).containsExactly(data);
    // a later run's maps join those recorded: the files the earlier ones placed stay there
    assertThat(read.withMappedPrefixes(List.of(manifests, data)).mappedPrefixes())
        .containsExactly(data, manifests);
    assertThat(read.withMappedPrefixes(List.of(data))).isSameAs(read);
    assertThat(read.withLastCommit(new ReplicaState.LastCommit(2, "t2", null)).mappedPrefixes())
        .containsExactly(data);
    byte[] before =
        "{\"state-version\": 1, \"expired-snapshot-ids\": [4]}".getBytes(StandardCharsets.UTF_8);
    assertThat(ReplicaStateParser.fromJson(before, "state.json").mappedPrefixes()).isEmpty();
  }

  @Test
  void cutTagsSurviveARoundTripAndEveryLaterStateChange() {
    ReplicaState state =
        ReplicaState.empty()
            .withCutTags(Map.of("sales", 11L, "sales-20261203T154817Z", 11L))
            .withKeptRefs(Map.of("failback-orphan", 3L));
    ReplicaState read = ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json");
    assertThat(read).isEqualTo(state);
    assertThat(
            read.withLastCommit(new ReplicaState.LastCommit(2, "t2", null))
                .withRetention(Set.of(1L), Map.of(), List.of())
                .withPromotion(null)
                .cutTags())
        .containsExactlyInAnyOrderEntriesOf(Map.of("sales", 11L, "sales-20261203T154817Z", 11L));
    byte[] before = "{\"state-version\": 1}".getBytes(StandardCharsets.UTF_8);
    assertThat(ReplicaStateParser.fromJson(before, "state.json").cutTags()).isEmpty();
  }

  @Test
  void theKnownCurrentRecordAndTheGroupSurviveEveryLaterStateChangeButAPromotion() {
    GroupMembership sales =
        new GroupMembership(
            "sales",
            "sales-cut",
            List.of("s3://dr/sales/orders", "s3://dr/sales/order_items"),
            java.time.Duration.ofMillis(1500),
            java.time.Duration.ofMillis(400));
    ReplicaState state =
        ReplicaState.empty().withKnownCurrentFrom(1_700_000_000_123L).withGroup(sales);
    ReplicaState read = ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json");
    assertThat(read).isEqualTo(state);
    ReplicaState later =
        read.withLastCommit(new ReplicaState.LastCommit(2, "t2", null))
            .withRetention(Set.of(1L), Map.of(), List.of())
            .withCutTags(Map.of("sales-cut", 3L))
            .withKnownCurrentFrom(1_600_000_000_000L);
    assertThat(later.knownCurrentFromMs()).as("never moved back").isEqualTo(1_700_000_000_123L);
    assertThat(later.group()).isEqualTo(sales);
    ReplicaState promoted =
        later.withPromotion(new Promotion(1, 2, "now", "v3.metadata.json", null, 3, null));
    assertThat(promoted.knownCurrentFromMs())
        .as("a primary is known current with no source")
        .isNull();
    byte[] before = "{\"state-version\": 1}".getBytes(StandardCharsets.UTF_8);
    assertThat(ReplicaStateParser.fromJson(before, "state.json").knownCurrentFromMs()).isNull();
    assertThat(ReplicaStateParser.fromJson(before, "state.json").group()).isNull();
  }

  @Test
  void aMalformedKnownCurrentRecordOrGroupIsRefusedNamingTheFile() {
    byte[] notATime =
        "{\"state-version\": 1, \"known-current-from-ms\": \"soon\"}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReplicaStateParser.fromJson(notATime, "s3://dr/t/state.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("s3://dr/t/state.json")
        .hasMessageContaining("known-current-from-ms \"soon\" is not a time");
    byte[] noMembers =
        "{\"state-version\": 1, \"group\": {\"name\": \"sales\", \"ref\": \"sales\"}}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReplicaStateParser.fromJson(noMembers, "s3://dr/t/state.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("its group needs a name, a ref, its members");
  }

  @Test
  void anInferredMirrorSurvivesARoundTripAndAStateWithoutOneReadsAsNone() {
    ReplicaState state =
        ReplicaState.empty()
            .withSourcePrefixes(List.of(new PathMapping.Prefix("s3://a/wh/t", "s3://b/wh/t")))
            .withMirrorPrefixes(List.of(new PathMapping.Prefix("s3://a", "s3://b")));
    ReplicaState read = ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json");
    assertThat(read).isEqualTo(state);
    assertThat(read.mirrorPrefixes()).containsExactly(new PathMapping.Prefix("s3://a", "s3://b"));
    assertThat(read.withLastCommit(new ReplicaState.LastCommit(2, "t2", null)).mirrorPrefixes())
        .as("kept by every later state change")
        .isEqualTo(state.mirrorPrefixes());

    byte[] before =
        "{\"state-version\": 1, \"mirror-prefixes\": [{\"source\": \"s3://a\"}]}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReplicaStateParser.fromJson(before, "state.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("mirror-prefixes entry lacks its source or target");
    assertThat(ReplicaState.empty().mirrorPrefixes()).isEmpty();
  }

  @Test
  void aPromotionSurvivesARoundTripAndAStateWithoutOneReadsAsNotPromoted() {
    ReplicaState state =
        ReplicaState.empty()
            .withLastCommit(new ReplicaState.LastCommit(4, "t4", "t3"))
            .withPromotion(
                new Promotion(2, 1_700_000_000_000L, "now", "00007-a.metadata.json", 1_699L, 5));
    assertThat(ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state.json"))
        .isEqualTo(state);
    ReplicaState unknownTime =
        state.withPromotion(new Promotion(1, 5L, "safe", "v3.metadata.json", null, 2));
    assertThat(ReplicaStateParser.fromJson(ReplicaStateParser.toJson(unknownTime), "state.json"))
        .isEqualTo(unknownTime);

    byte[] before =
        ("{\"state-version\": 1, \"expired-snapshot-ids\": [],"
                + " \"last-commit\": {\"version\": 3, \"token\": \"t3\"}}")
            .getBytes(StandardCharsets.UTF_8);
    ReplicaState read = ReplicaStateParser.fromJson(before, "state.json");
    assertThat(read.promotion()).isNull();
    assertThat(read.lastCommit()).isEqualTo(new ReplicaState.LastCommit(3, "t3", null));
  }

  @Test
  void aPromotionWithoutItsEpochIsRefused() {
    byte[] json =
        "{\"state-version\": 1, \"promotion\": {\"mode\": \"now\"}}"
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReplicaStateParser.fromJson(json, "state.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read replica state state.json: its promotion lacks epoch");
  }

  @Test
  void aNewerStateVersionIsRefused() {
    byte[] json = "{\"state-version\": 2}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReplicaStateParser.fromJson(json, "state.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read replica state state.json: it is state-version 2, written by a newer"
                + " release, and this release reads state-version 1 at most; the replica is left"
                + " as it is until this instance is upgraded");
  }

  @Test
  void aStateVersionThatIsNoVersionIsRefused() {
    byte[] json = "{\"state-version\": \"one\"}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReplicaStateParser.fromJson(json, "state.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read replica state state.json: state-version \"one\" is not a state version");
  }
}
