package io.icerepl.app.scenario;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * End to end, one scenario at a time: write the source with the Iceberg library, replicate it with
 * the CLI, and check the replica reads and time-travels exactly as the source did, with no path
 * left pointing at the source.
 */
class ScenarioReplicationTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @ParameterizedTest(name = "{0}")
  @EnumSource(Scenario.class)
  void replicaReadsAndTimeTravelsLikeTheSource(Scenario scenario, @TempDir Path dir) {
    ScenarioTable source = scenario.write(dir);
    String target = Replication.targetFor(source, dir);

    Replication.replicate(source.location(), target);

    verifier.verify(source, target);
  }
}
