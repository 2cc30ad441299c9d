package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.localstack.EmbeddedAzurite;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service with a rule whose target is on Azure (Azurite's Blob API at {@code
 * replicator.azure.target.endpoint}, its account key where Azure's tools look for it): a table
 * written with the Iceberg library is backfilled, then each new commit follows, and Iceberg's own
 * ADLSFileIO reads the replica like the source at every snapshot. Skips, saying so, where Azurite
 * is not installed.
 */
class AzureTargetServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String PREFIX = "abfss://replica@devstoreaccount1.dfs.core.windows.net/wh";

  @TempDir static Path tempDir;
  private static EmbeddedAzurite azurite;
  private static ADLSFileIO io;
  private static RunningService service;

  @BeforeAll
  static void start() throws IOException {
    Assumptions.assumeTrue(
        EmbeddedAzurite.available(),
        "Azurite is not installed (npm install --prefix local-stack/azurite azurite): skipped");
    azurite = EmbeddedAzurite.start();
    azurite.createContainer("replica");
    System.setProperty("AZURE_STORAGE_ACCOUNT", azurite.accountName());
    System.setProperty("AZURE_STORAGE_KEY", azurite.accountKey());
    io = new ADLSFileIO();
    io.initialize(
        Map.of(
            "adls.connection-string." + azurite.accountName() + ".dfs.core.windows.net",
            azurite.endpoint(),
            "adls.auth.shared-key.account.name",
            azurite.accountName(),
            "adls.auth.shared-key.account.key",
            azurite.accountKey()));
    Path warehouse = tempDir.toRealPath().resolve("warehouse");
    service =
        RunningService.start(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "file:" + warehouse,
                "replicator.rules[0].targets[0].name", "dr",
                "replicator.rules[0].targets[0].prefix", PREFIX,
                "replicator.azure.target.endpoint", azurite.endpoint(),
                "replicator.reconciliation-interval", "300ms",
                "replicator.retry.initial-backoff", "200ms",
                "replicator.retry.max-backoff", "1s"));
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
    System.clearProperty("AZURE_STORAGE_ACCOUNT");
    System.clearProperty("AZURE_STORAGE_KEY");
    if (io != null) {
      io.close();
    }
    if (azurite != null) {
      azurite.close();
    }
  }

  @Test
  void backfillsThenFollowsEachCommitOntoAzure() throws IOException {
    SourceTable source = SourceTable.create(tempDir.toRealPath().resolve("warehouse/ns/t1"), 2);
    source.append("a", 3);
    source.append("b", 2);
    awaitInSync(source);
    assertReplicaReadsLike(source);

    source.append("c", 4);
    awaitInSync(source);
    assertReplicaReadsLike(source);

    JsonNode status = service.http.get("/api/replications/dr/ns/t1").json();
    // the container names where the replica is: no user info to redact
    assertThat(status.path("replicaMetadataFile").asText()).startsWith(PREFIX + "/ns/t1/metadata/");
  }

  private static void awaitInSync(SourceTable source) {
    String current =
        ((HasTableOperations) SourceTable.TABLES.load(source.location))
            .operations()
            .current()
            .metadataFileLocation();
    String name = current.substring(current.lastIndexOf('/') + 1);
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              JsonNode status = service.http.get("/api/replications/dr/ns/t1").json();
              assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");
              assertThat(status.path("lastSourceMetadataFile").asText()).endsWith(name);
            });
  }

  private static void assertReplicaReadsLike(SourceTable source) {
    String location = PREFIX + "/ns/t1";
    String hint = read(location + "/metadata/version-hint.text").trim();
    Table replica =
        new BaseTable(
            new StaticTableOperations(location + "/metadata/v" + hint + ".metadata.json", io),
            "replica");
    Table table = SourceTable.TABLES.load(source.location);
    assertThat(replica.currentSnapshot().snapshotId())
        .isEqualTo(table.currentSnapshot().snapshotId());
    for (Snapshot snapshot : table.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(table, snapshot.snapshotId()));
    }
  }

  private static String read(String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
