package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Where the lag of a replica counts from: the first source version it lacks. */
class ObservationTest {
  private static final String HEAD = "s3://b/t/metadata/00003-c.metadata.json";
  private static final TableMetadata METADATA =
      TableMetadataParser.read(
          ("{\"format-version\":1,\"location\":\"s3://b/t\",\"last-updated-ms\":3000,\"last-column-id\":1,"
                  + "\"schema\":{\"type\":\"struct\",\"fields\":[]},\"partition-spec\":[],"
                  + "\"metadata-log\":[{\"timestamp-ms\":1000,\"metadata-file\":\"s3://b/t/metadata/00001-a.metadata.json\"},"
                  + "{\"timestamp-ms\":2000,\"metadata-file\":\"s3://b/t/metadata/00002-b.metadata.json\"}]}")
              .getBytes(StandardCharsets.UTF_8),
          "00003-c.metadata.json");

  @Test
  void aReplicaBehindCountsFromTheVersionAfterTheOneItHolds() {
    assertThat(
            Observation.oldestUnreplicatedMs(
                METADATA, HEAD, Optional.of("00001-a.metadata.json"), OptionalLong.empty()))
        .isEqualTo(2000);
    assertThat(
            Observation.oldestUnreplicatedMs(
                METADATA, HEAD, Optional.of("00002-b.metadata.json"), OptionalLong.empty()))
        .isEqualTo(3000);
  }

  @Test
  void aReplicaHoldingTheSettledHeadCountsFromTheNewerFileStillSettlingNotFromTheOldestLogEntry() {
    assertThat(
            Observation.oldestUnreplicatedMs(
                METADATA, HEAD, Optional.of("00003-c.metadata.json"), OptionalLong.of(9000)))
        .isEqualTo(9000);
  }
}
