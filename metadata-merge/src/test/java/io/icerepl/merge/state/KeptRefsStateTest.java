package io.icerepl.merge.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeptRefsStateTest {
  @Test
  void keptRefsSurviveAWriteAndARead() {
    ReplicaState state =
        ReplicaState.empty().withKeptRefs(Map.of("failback-orphan-20261130T180000Z", 10L));

    ReplicaState read = ReplicaStateParser.fromJson(ReplicaStateParser.toJson(state), "state");

    assertThat(read.keptRefs()).containsExactly(Map.entry("failback-orphan-20261130T180000Z", 10L));
    // later records keep them
    assertThat(
            read.withLastCommit(null)
                .withRetention(read.expiredSnapshotIds(), Map.of(), java.util.List.of())
                .keptRefs())
        .isEqualTo(read.keptRefs());
  }

  @Test
  void aStateWithoutKeptRefsReadsAsKeepingNone() {
    String json = "{\"state-version\": 1, \"expired-snapshot-ids\": [3]}";

    ReplicaState read = ReplicaStateParser.fromJson(json.getBytes(StandardCharsets.UTF_8), "state");

    assertThat(read.keptRefs()).isEmpty();
    assertThat(read.expiredSnapshotIds()).containsExactly(3L);
  }
}
