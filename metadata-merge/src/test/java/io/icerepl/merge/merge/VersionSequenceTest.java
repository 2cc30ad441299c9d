package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.ConflictException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VersionSequenceTest {
  private static final String M = "file:/src/metadata/";

  private static MetadataJson headWithLog(int versions) {
    MetadataJson head = MetadataJson.table(2, "file:/src").commit(1, null, 100);
    for (int v = 1; v < versions; v++) {
      head.logMetadataFile(v * 10L, M + "v" + v + ".metadata.json");
    }
    return head;
  }

  @Test
  void backfillAppliesOnlyTheHead() {
    assertThat(
            VersionSequence.toApply(
                headWithLog(5).build(),
                M + "v5.metadata.json",
                Optional.empty(),
                Optional.empty(),
                false))
        .containsExactly(M + "v5.metadata.json");
  }

  @Test
  void appliesEveryVersionAfterTheLastReplicatedInOrder() {
    assertThat(
            VersionSequence.toApply(
                headWithLog(5).build(),
                M + "v5.metadata.json",
                Optional.of("/src/metadata/v2.metadata.json"),
                Optional.of(20L),
                false))
        .containsExactly(M + "v3.metadata.json", M + "v4.metadata.json", M + "v5.metadata.json");
  }

  @Test
  void coalesceAppliesOnlyTheHead() {
    assertThat(
            VersionSequence.toApply(
                headWithLog(5).build(),
                M + "v5.metadata.json",
                Optional.of(M + "v2.metadata.json"),
                Optional.of(20L),
                true))
        .containsExactly(M + "v5.metadata.json");
  }

  @Test
  void nothingToDoWhenTheReplicaHoldsTheHead() {
    assertThat(
            VersionSequence.toApply(
                headWithLog(5).build(),
                "file:///src/metadata/v5.metadata.json",
                Optional.of(M + "v5.metadata.json"),
                Optional.of(50L),
                false))
        .isEmpty();
  }

  @Test
  void aLastReplicatedFileMissingFromTheLogMeansRewound() {
    assertThatThrownBy(
            () ->
                VersionSequence.toApply(
                    headWithLog(5).build(),
                    M + "v5.metadata.json",
                    Optional.of(M + "v9.metadata.json"),
                    Optional.of(20L),
                    false))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot replicate table metadata "
                + M
                + "v5.metadata.json: the last replicated source file "
                + M
                + "v9.metadata.json is not in its metadata-log; the source was rewound or replaced");
  }

  @Test
  void theLastReplicatedFileIsFoundByItsName() {
    assertThat(
            VersionSequence.toApply(
                headWithLog(5).build(),
                M + "v5.metadata.json",
                Optional.of("v3.metadata.json"),
                Optional.of(30L),
                false))
        .containsExactly(M + "v4.metadata.json", M + "v5.metadata.json");
  }

  @Test
  void aFullLogThatStartsAfterTheLastReplicatedFileIsFollowedFromItsStart() {
    MetadataJson head = headWithLog(1).property("write.metadata.previous-versions-max", "2");
    head.logMetadataFile(40, M + "v4.metadata.json").logMetadataFile(50, M + "v5.metadata.json");

    assertThat(
            VersionSequence.toApply(
                head.build(),
                M + "v6.metadata.json",
                Optional.of(M + "v2.metadata.json"),
                Optional.of(20L),
                false))
        .containsExactly(M + "v4.metadata.json", M + "v5.metadata.json", M + "v6.metadata.json");
  }

  @Test
  void aLogShorterThanItsMaximumThatStartsAfterTheLastReplicatedFileIsFollowedFromItsStart() {
    // previous-versions-max was 2 when v3 and v4 pushed v2 out, then raised to 10
    MetadataJson head = headWithLog(1).property("write.metadata.previous-versions-max", "10");
    head.logMetadataFile(30, M + "v3.metadata.json").logMetadataFile(40, M + "v4.metadata.json");

    assertThat(
            VersionSequence.toApply(
                head.build(),
                M + "v5.metadata.json",
                Optional.of(M + "v2.metadata.json"),
                Optional.of(20L),
                false))
        .containsExactly(M + "v3.metadata.json", M + "v4.metadata.json", M + "v5.metadata.json");
  }

  @Test
  void aLogEntryWrittenInTheSameMillisecondAsTheLastReplicatedFileFollowsIt() {
    MetadataJson head = headWithLog(1).property("write.metadata.previous-versions-max", "2");
    head.logMetadataFile(20, M + "v3.metadata.json").logMetadataFile(30, M + "v4.metadata.json");

    assertThat(
            VersionSequence.toApply(
                head.build(),
                M + "v5.metadata.json",
                Optional.of(M + "v2.metadata.json"),
                Optional.of(20L),
                false))
        .containsExactly(M + "v3.metadata.json", M + "v4.metadata.json", M + "v5.metadata.json");
  }
}
