package io.icerepl.app.scenario;

import io.icerepl.localstack.EmbeddedAzurite;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.junit.jupiter.api.Assumptions;

/**
 * Azurite for tests of replicas on Azure: started with a container, its key where the replicator
 * finds Azure's credentials (the {@code AZURE_STORAGE_*} names, as system properties), and
 * Iceberg's own {@link ADLSFileIO} on it to read replicas back. Starting it skips the calling test,
 * saying so, where Azurite is not installed ({@code .ci/run} installs it with npm).
 */
public final class AzuriteReplicas implements AutoCloseable {
  private final EmbeddedAzurite azurite;
  private final String container;
  private final ADLSFileIO io;

  private AzuriteReplicas(EmbeddedAzurite azurite, String container) {
    this.azurite = azurite;
    this.container = container;
    this.io = new ADLSFileIO();
    io.initialize(
        Map.of(
            "adls.connection-string." + host(),
            azurite.endpoint(),
            "adls.auth.shared-key.account.name",
            azurite.accountName(),
            "adls.auth.shared-key.account.key",
            azurite.accountKey()));
  }

  /** Azurite with {@code container}, or the calling test skipped where it is not installed. */
  public static AzuriteReplicas startOrSkip(String container) {
    Assumptions.assumeTrue(
        EmbeddedAzurite.available(),
        "Azurite is not installed (npm install --prefix local-stack/azurite azurite): skipped");
    EmbeddedAzurite azurite = EmbeddedAzurite.start();
    azurite.createContainer(container);
    System.setProperty("AZURE_STORAGE_ACCOUNT", azurite.accountName());
    System.setProperty("AZURE_STORAGE_KEY", azurite.accountKey());
    return new AzuriteReplicas(azurite, container);
  }

  /** The emulator's Blob endpoint, a side's {@code --*-endpoint} when its location is on Azure. */
  public String endpoint() {
    return azurite.endpoint();
  }

  /** The account's DFS host, as {@code abfss://} locations name it. */
  public String host() {
    return azurite.accountName() + ".dfs.core.windows.net";
  }

  /** {@code abfss://<container>@<host>/<path>}. */
  public String location(String path) {
    return "abfss://" + container + "@" + host() + "/" + path;
  }

  /** Iceberg's reader of the emulator's objects. */
  public ADLSFileIO io() {
    return io;
  }

  /** See {@link ReplicaReadBack#problems}, read through {@link #io()}. */
  public List<String> problems(
      ScenarioExpectations expected, String sourceLocation, String target) {
    return ReplicaReadBack.problems(io, expected, sourceLocation, target);
  }

  @Override
  public void close() {
    System.clearProperty("AZURE_STORAGE_ACCOUNT");
    System.clearProperty("AZURE_STORAGE_KEY");
    io.close();
    azurite.close();
  }
}
