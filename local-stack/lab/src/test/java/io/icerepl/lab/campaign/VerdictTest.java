package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VerdictTest {

  @Test
  void aReplicaLikeTheSourcePasses() {
    assertThat(replica(true, 5, 5, 0, 5, 0, 0, List.of()).ok()).isTrue();
  }

  @Test
  void eachReplicaCheckFailsOnItsOwn() {
    assertThat(replica(false, 5, 5, 0, 5, 0, 0, List.of()).failed())
        .containsExactly("converged to the source head");
    assertThat(replica(true, 5, 5, 0, 0, 0, 0, List.of()).failed())
        .containsExactly("snapshots read on the replica");
    assertThat(replica(true, 4, 5, 0, 5, 0, 0, List.of()).failed())
        .containsExactly("every source commit replicated");
    assertThat(replica(true, 5, 5, 1, 5, 0, 0, List.of()).failed())
        .containsExactly("no source commit replicated twice");
    assertThat(replica(true, 5, 5, 0, 5, 1, 0, List.of()).failed())
        .containsExactly("no snapshot missing");
    assertThat(replica(true, 5, 5, 0, 5, 0, 1, List.of()).failed())
        .containsExactly("no snapshot reads other rows");
    assertThat(replica(true, 5, 5, 0, 5, 0, 0, List.of("refs differ")).failed())
        .containsExactly("refs and current snapshot as on the source");
  }

  @Test
  void refsAndTheCurrentSnapshotAreComparedNotOnlyRows() {
    Map<String, Long> source = Map.of("main", 3L, "audit", 2L, "round-0", 1L);
    assertThat(Verdict.refProblems(source, 3L, Map.of("main", 3L, "audit", 2L, "round-0", 1L), 3L))
        .isEmpty();
    assertThat(Verdict.refProblems(source, 3L, Map.of("main", 3L, "audit", 2L), 3L))
        .singleElement()
        .asString()
        .contains("refs");
    assertThat(Verdict.refProblems(source, 3L, Map.of("main", 3L, "audit", 1L, "round-0", 1L), 3L))
        .hasSize(1);
    assertThat(Verdict.refProblems(source, 3L, source, 2L))
        .singleElement()
        .asString()
        .contains("current snapshot");
  }

  private static Verdict replica(
      boolean converged,
      int replicated,
      int committed,
      int duplicates,
      long compared,
      long missing,
      long mismatched,
      List<String> refProblems) {
    return new Verdict()
        .replicaChecks(
            converged,
            replicated,
            committed,
            duplicates,
            compared,
            missing,
            mismatched,
            refProblems);
  }
}
