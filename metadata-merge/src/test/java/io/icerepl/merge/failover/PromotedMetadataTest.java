package io.icerepl.merge.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.merge.MetadataJson;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadata;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PromotedMetadataTest {
  private static final String REPLICA_FILE = "s3://r/wh/t/metadata/v4.metadata.json";

  private static MetadataJson replica(int formatVersion) {
    MetadataJson json =
        MetadataJson.table(formatVersion, "s3://r/wh/t")
            .commit(1, null, 2_000L)
            .commit(2, 1L, 3_000L)
            .logMetadataFile(1_500L, "s3://r/wh/t/metadata/v3.metadata.json")
            .property(ReplicaProperties.READ_ONLY, "true")
            .property(ReplicaProperties.COMMIT_TOKEN, "t4")
            .property(ReplicaProperties.SOURCE_METADATA_FILE, "00002-a.metadata.json")
            .property("owner", "etl");
    if (formatVersion >= 3) {
      json.json.put("next-row-id", 40);
    }
    return json;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void promotionDropsTheReplicaMarkingsSetsTheEpochAndLogsTheReplacedVersion(int formatVersion) {
    TableMetadata before = replica(formatVersion).build();
    TableMetadata promoted = PromotedMetadata.of(before, REPLICA_FILE, 1, 9_000L);

    assertThat(promoted.properties())
        .doesNotContainKeys(ReplicaProperties.READ_ONLY, ReplicaProperties.COMMIT_TOKEN)
        .containsEntry(ReplicaProperties.EPOCH, "1")
        .containsEntry(ReplicaProperties.SOURCE_METADATA_FILE, "00002-a.metadata.json")
        .containsEntry("owner", "etl");
    assertThat(promoted.lastUpdatedMs()).isEqualTo(9_000L);
    assertThat(promoted.metadataLog())
        .containsExactly(
            new TableMetadata.LogEntry(1_500L, "s3://r/wh/t/metadata/v3.metadata.json"),
            new TableMetadata.LogEntry(3_000L, REPLICA_FILE));
    assertThat(promoted.json().get("snapshots")).isEqualTo(before.json().get("snapshots"));
    assertThat(promoted.currentSnapshotId()).contains(2L);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void promotionLeavesAGapInSequenceNumbersTheOldSourceMayHaveUsed(int formatVersion) {
    TableMetadata promoted =
        PromotedMetadata.of(replica(formatVersion).build(), REPLICA_FILE, 1, 9_000L);
    assertThat(promoted.lastSequenceNumber()).isEqualTo(2 + (1L << 20));
  }

  @ParameterizedTest
  @ValueSource(ints = {3})
  void aV3PromotionLeavesAGapInRowIds(int formatVersion) {
    TableMetadata promoted =
        PromotedMetadata.of(replica(formatVersion).build(), REPLICA_FILE, 1, 9_000L);
    assertThat(promoted.json().get("next-row-id").asLong()).isEqualTo(40 + (1L << 40));
  }

  @ParameterizedTest
  @ValueSource(ints = {1})
  void aV1PromotionWritesNoSequenceNumber(int formatVersion) {
    TableMetadata promoted =
        PromotedMetadata.of(replica(formatVersion).build(), REPLICA_FILE, 1, 9_000L);
    assertThat(promoted.json().get("last-sequence-number").asLong()).isZero();
  }

  @ParameterizedTest
  @ValueSource(ints = {2})
  void theEpochCountsOnFromTheOneTheTableCarries(int formatVersion) {
    assertThat(PromotedMetadata.nextEpoch(replica(formatVersion).build())).isEqualTo(1);
    assertThat(
            PromotedMetadata.nextEpoch(
                replica(formatVersion).property(ReplicaProperties.EPOCH, "2").build()))
        .isEqualTo(3);
  }

  @ParameterizedTest
  @ValueSource(ints = {2})
  void lastUpdatedNeverGoesBackFromTheReplicas(int formatVersion) {
    TableMetadata promoted =
        PromotedMetadata.of(replica(formatVersion).build(), REPLICA_FILE, 1, 100L);
    assertThat(promoted.lastUpdatedMs()).isEqualTo(3_000L);
  }
}
