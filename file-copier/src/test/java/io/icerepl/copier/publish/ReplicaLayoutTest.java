package io.icerepl.copier.publish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The names are a contract with what exists already: replicas published by earlier releases, and
 * leases held by instances still running an earlier release during a rolling deployment.
 */
class ReplicaLayoutTest {
  private static final String REPLICA = "s3://replica/warehouse/db/orders";

  @Test
  void replicaIsAHadoopStyleTableReadersOpenByPath() {
    assertThat(ReplicaLayout.metadataFile(REPLICA, 12))
        .isEqualTo(REPLICA + "/metadata/v12.metadata.json");
    assertThat(ReplicaLayout.metadataFile(REPLICA + "/", 1))
        .isEqualTo(REPLICA + "/metadata/v1.metadata.json");
    assertThat(ReplicaLayout.versionHintFile(REPLICA))
        .isEqualTo(REPLICA + "/metadata/version-hint.text");
  }

  @Test
  void stateFileIsHiddenBesideTheMetadata() {
    assertThat(ReplicaLayout.stateFile(REPLICA))
        .isEqualTo(REPLICA + "/metadata/.replicator-state.json");
  }

  @Test
  void leaseKeyIsTheSha256OfTheLocationUnderTheLockPrefix() {
    assertThat(ReplicaLayout.leaseKey(ReplicaLayout.DEFAULT_LOCK_PREFIX, REPLICA))
        .isEqualTo(
            ".replicator-locks/e1a5e842657eb7752b854fc8dc8c2253ba6f33153d72406c7098d2509288d04d");
  }
}
