package io.icerepl.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.lab.bench.FleetOrderCheck.ReplicaVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetOrderCheckTest {
  private static final String DIR = "s3://source/warehouse/ns/t000/metadata/";

  private static ReplicaVersion v(int version, String sourceFile, Long... ids) {
    return new ReplicaVersion(version, DIR + sourceFile, List.of(ids));
  }

  @Test
  void aReplicaThatSkipsSourceVersionsButHoldsEverySnapshotInOrderPasses() {
    assertThat(
            FleetOrderCheck.problems(
                "t000",
                List.of(
                    v(1, "00001-a.metadata.json", 10L),
                    v(2, "00004-b.metadata.json", 10L, 11L, 12L, 13L)),
                List.of(10L, 11L, 12L, 13L)))
        .isEmpty();
  }

  @Test
  void aSourceVersionAppliedTwiceIsReported() {
    assertThat(
            FleetOrderCheck.problems(
                "t000",
                List.of(
                    v(1, "00001-a.metadata.json", 10L),
                    v(2, "00001-a.metadata.json", 10L),
                    v(3, "00002-b.metadata.json", 10L, 11L)),
                List.of(10L, 11L)))
        .containsExactly("t000: replica v2 applies source version 1 after 1");
  }

  @Test
  void anOlderSourceVersionAppliedAfterANewerOneIsReported() {
    assertThat(
            FleetOrderCheck.problems(
                "t000",
                List.of(
                    v(1, "00003-c.metadata.json", 10L, 11L, 12L),
                    v(2, "00002-b.metadata.json", 10L, 11L),
                    v(3, "00004-d.metadata.json", 10L, 11L, 12L, 13L)),
                List.of(10L, 11L, 12L, 13L)))
        .containsExactly("t000: replica v2 applies source version 2 after 3");
  }

  @Test
  void aVersionWhoseSnapshotsTheHistoryLaterReordersIsReported() {
    assertThat(
            FleetOrderCheck.problems(
                "t000",
                List.of(
                    v(1, "00001-a.metadata.json", 11L), v(2, "00002-b.metadata.json", 10L, 11L)),
                List.of(10L, 11L)))
        .containsExactly("t000: replica v1 snapshots [11] are not a prefix of the last version's");
  }

  @Test
  void aSnapshotMissingOrDuplicatedAtTheEndIsReported() {
    assertThat(
            FleetOrderCheck.problems(
                "t000", List.of(v(1, "00002-b.metadata.json", 10L)), List.of(10L, 11L)))
        .containsExactly("t000: replica snapshots [10] differ from the source's [10, 11]");
    assertThat(
            FleetOrderCheck.problems(
                "t000", List.of(v(1, "00002-b.metadata.json", 10L, 10L)), List.of(10L)))
        .containsExactly("t000: replica snapshots [10, 10] differ from the source's [10]");
  }

  @Test
  void aReplicaWithNoMetadataOrNoRecordedSourceFileIsReported() {
    assertThat(FleetOrderCheck.problems("t000", List.of(), List.of(10L)))
        .containsExactly("t000: no replica metadata");
    assertThat(
            FleetOrderCheck.problems(
                "t000", List.of(new ReplicaVersion(1, null, List.of(10L))), List.of(10L)))
        .containsExactly("t000: replica v1 records no source metadata file version");
  }

  @Test
  void theSourceVersionIsReadFromBothNamingSchemes() {
    assertThat(FleetOrderCheck.sourceVersion(DIR + "00012-1b2c.metadata.json")).isEqualTo(12);
    assertThat(FleetOrderCheck.sourceVersion(DIR + "v7.metadata.json")).isEqualTo(7);
    assertThat(FleetOrderCheck.sourceVersion(DIR + "snap-1.avro")).isEqualTo(-1);
  }
}
