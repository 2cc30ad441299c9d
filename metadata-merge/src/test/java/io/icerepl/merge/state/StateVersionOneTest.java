package io.icerepl.merge.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.retention.ExpiredSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * State files as the release before fencing epochs wrote them (state-version 1, kept under {@code
 * src/test/resources/state}): this release reads every field of them and, until a leased run writes
 * an epoch, writes them back byte for byte, so either release can go on with the replica.
 */
class StateVersionOneTest {

  @ParameterizedTest
  @ValueSource(
      strings = {"state-v1-committed.json", "state-v1-retention.json", "state-v1-promoted.json"})
  void aStateVersionOneFileIsReadAndWrittenBackByteForByte(String fixture) throws IOException {
    byte[] written = fixture(fixture);

    FencedState read = ReplicaStateParser.readFenced(written, fixture);

    assertThat(read.fencingEpoch()).isZero();
    assertThat(new String(ReplicaStateParser.toJson(read), StandardCharsets.UTF_8))
        .isEqualTo(new String(written, StandardCharsets.UTF_8));
  }

  @Test
  void everyFieldOfTheFullestStateVersionOneFileIsRead() throws IOException {
    String r = "s3://replica/warehouse/ns/t";

    ReplicaState state =
        ReplicaStateParser.fromJson(fixture("state-v1-promoted.json"), "state-v1-promoted.json");

    assertThat(state.expiredSnapshotIds()).containsExactlyInAnyOrder(101L, 102L);
    assertThat(state.droppedRefs()).isEqualTo(Map.of("old-branch", 101L));
    assertThat(state.pendingDeletes())
        .containsExactly(
            new ExpiredSnapshot(
                102L,
                r + "/metadata/snap-102-1-a.avro",
                List.of(r + "/metadata/m1.avro"),
                List.of(r + "/metadata/102.stats")));
    assertThat(state.replacedStatisticsFiles()).containsExactly(r + "/metadata/99.stats");
    assertThat(state.lastCommit())
        .isEqualTo(
            new ReplicaState.LastCommit(
                3, "7f0c2f4e-3c1b-4b8e-9a51-2d3e4f5a6b7c", "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"));
    assertThat(state.sourcePrefixes())
        .containsExactly(new PathMapping.Prefix("s3://source/warehouse/ns/t", r));
    assertThat(state.mirrorPrefixes())
        .containsExactly(new PathMapping.Prefix("s3://source/other", r + "/other"));
    assertThat(state.promotion())
        .isEqualTo(
            new Promotion(
                2,
                1765000000000L,
                "safe",
                "s3://source/warehouse/ns/t/metadata/v4.metadata.json",
                1764999999000L,
                4,
                "g-20261206T120000Z"));
    assertThat(state.keptRefs()).isEqualTo(Map.of("failback-orphan-1", 103L));
    assertThat(state.cutTags()).isEqualTo(Map.of("g-20261206T120000Z", 103L));
  }

  @Test
  void aFencingEpochIsAnOptionalFieldOfStateVersionOne() throws IOException {
    ReplicaState state =
        ReplicaStateParser.fromJson(fixture("state-v1-committed.json"), "state-v1-committed.json");

    byte[] fenced = ReplicaStateParser.toJson(new FencedState(state, 7));

    String json = new String(fenced, StandardCharsets.UTF_8);
    assertThat(json).contains("\"state-version\" : 1,").contains("\"fencing-epoch\" : 7");
    assertThat(ReplicaStateParser.readFenced(fenced, "fenced"))
        .isEqualTo(new FencedState(state, 7));
  }

  private static byte[] fixture(String name) throws IOException {
    try (InputStream in = StateVersionOneTest.class.getResourceAsStream("/state/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }
}
