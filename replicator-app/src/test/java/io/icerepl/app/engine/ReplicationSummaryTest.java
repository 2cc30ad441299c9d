package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReplicationSummaryTest {
  private static final List<PathMapping.Prefix> MIRROR =
      List.of(new PathMapping.Prefix("s3://m/t", "s3://r/t/m"));

  private static ReplicationSummary full() {
    return ReplicationSummary.builder()
        .versionsApplied(1)
        .snapshotsAdded(2)
        .filesCopied(3)
        .bytesCopied(4)
        .filesRewritten(5)
        .replicaMetadataFiles(List.of("r/v1.metadata.json"))
        .skippedVersions(List.of("s/v1.metadata.json"))
        .lostSnapshots(List.of(6L))
        .settlesIn(Optional.of(Duration.ofSeconds(7)))
        .build();
  }

  @Test
  void eachSetterFillsTheComponentOfItsName() {
    ReplicationSummary summary = full();

    assertThat(summary.versionsApplied()).isEqualTo(1);
    assertThat(summary.snapshotsAdded()).isEqualTo(2);
    assertThat(summary.filesCopied()).isEqualTo(3);
    assertThat(summary.bytesCopied()).isEqualTo(4);
    assertThat(summary.filesRewritten()).isEqualTo(5);
    assertThat(summary.replicaMetadataFiles()).containsExactly("r/v1.metadata.json");
    assertThat(summary.skippedVersions()).containsExactly("s/v1.metadata.json");
    assertThat(summary.lostSnapshots()).containsExactly(6L);
    assertThat(summary.settlesIn()).contains(Duration.ofSeconds(7));
    assertThat(summary.inferredMirror()).isEmpty();
  }

  @Test
  void aSummaryWithAnInferredMirrorKeepsEverythingElse() {
    ReplicationSummary mirrored = full().withInferredMirror(MIRROR);

    assertThat(mirrored.inferredMirror()).isEqualTo(MIRROR);
    assertThat(mirrored.toBuilder().inferredMirror(List.of()).build()).isEqualTo(full());
  }

  @Test
  void noneCountsNothing() {
    assertThat(ReplicationSummary.none())
        .isEqualTo(
            new ReplicationSummary(
                0, 0, 0, 0, 0, List.of(), List.of(), List.of(), Optional.empty(), List.of()));
  }
}
