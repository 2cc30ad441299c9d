package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.catalog.TablePaths;
import io.icerepl.localstack.EmbeddedAzurite;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
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
  private static EmbeddedAzurite azurite;
  private static ADLSFileIO io;

  @BeforeAll
  static void startAzurite() {
    Assumptions.assumeTrue(
        EmbeddedAzurite.available(),
        "Azurite is not installed (npm install --prefix local-stack/azurite azurite): skipped");
    azurite = EmbeddedAzurite.start();
    azurite.createContainer(CONTAINER);
    // the replicator finds Azure's credentials where the Azure tools look: here the emulator's key
    System.setProperty("AZURE_STORAGE_ACCOUNT", azurite.accountName());
    System.setProperty("AZURE_STORAGE_KEY", azurite.accountKey());
    io = new ADLSFileIO();
    io.initialize(
        Map.of(
            "adls.connection-string." + host(),
            azurite.endpoint(),
            "adls.auth.shared-key.account.name",
            azurite.accountName(),
            "adls.auth.shared-key.account.key",
            azurite.accountKey()));
  }

  @AfterAll
  static void stopAzurite() {
    System.clearProperty("AZURE_STORAGE_ACCOUNT");
    System.clearProperty("AZURE_STORAGE_KEY");
    if (io != null) {
      io.close();
    }
    if (azurite != null) {
      azurite.close();
    }
  }

  private static String host() {
    return azurite.accountName() + ".dfs.core.windows.net";
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
    String target = "abfss://" + CONTAINER + "@" + host() + "/wh/" + scenario.name().toLowerCase();

    Run replicate = cli("replicate", "--source", source.location(), "--target", target);
    assertThat(replicate.exit()).as(replicate.err()).isZero();

    String metadataFile =
        target
            + "/metadata/v"
            + read(target + "/metadata/version-hint.text").trim()
            + ".metadata.json";
    Table replica = new BaseTable(new StaticTableOperations(metadataFile, io), "replica");
    List<String> problems =
        new ArrayList<>(new ReplicaVerifier().readProblems(source.expectations(), replica));
    problems.addAll(TablePaths.outside(replica, io, target));
    if (read(metadataFile).contains(source.location())) {
      problems.add(metadataFile + " names the source's location");
    }
    assertThat(problems).as("replica %s", metadataFile).isEmpty();

    Run verify = cli("verify", "--target", target, "--source", source.location());
    assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
  }

  private static String read(String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Run(int exit, String out, String err) {}

  /** The CLI, its target side on the emulator's Blob endpoint. */
  private static Run cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--target-endpoint", azurite.endpoint()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
