package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Replicas on Azure: tables written with the Iceberg library, replicated with the CLI to an {@code
 * abfss://} location on Azurite (the Blob API an ADLS Gen2 account serves too), then read back
 * through Iceberg's own {@link ADLSFileIO} at every snapshot and ref, rows equal to the source's,
 * and every file the replica names under its own location. Skips, saying so, where Azurite is not
 * installed ({@code .ci/run} installs it with npm).
 */
class AzureReplicaTest {
  private static final String CONTAINER = "replica";
  private static AzuriteReplicas azure;

  @BeforeAll
  static void startAzurite() {
    azure = AzuriteReplicas.startOrSkip(CONTAINER);
  }

  @AfterAll
  static void stopAzurite() {
    if (azure != null) {
      azure.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Scenario.class,
      names = {
        "APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS",
        "ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY",
        "BRANCHES_AND_TAGS",
        "V3_DELETION_VECTORS_AND_ROW_LINEAGE",
        "ORC_DATA_AND_POSITION_DELETES",
        "V2_UPGRADED_TO_V3_MID_HISTORY"
      })
  void aReplicaOnAzureReadsLikeTheSourceThroughIcebergsAdlsFileIo(
      Scenario scenario, @TempDir Path dir) {
    ScenarioTable source = scenario.write(dir);
    String target = azure.location("wh/" + scenario.name().toLowerCase());

    Run replicate = cli("replicate", "--source", source.location(), "--target", target);
    assertThat(replicate.exit()).as(replicate.err()).isZero();

    assertThat(azure.problems(source.expectations(), source.location(), target))
        .as("replica %s", target)
        .isEmpty();

    Run verify = cli("verify", "--target", target, "--source", source.location());
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
  }

  private record Run(int exit, String out, String err) {}

  /** The CLI, its target side on the emulator's Blob endpoint. */
  private static Run cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--target-endpoint", azure.endpoint()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
