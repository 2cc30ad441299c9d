package io.icerepl.app.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.service.HttpJson;
import io.icerepl.app.service.RunningService;
import io.icerepl.merge.model.GzipBomb;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A decompression bomb against the service with its default settings: a gzip file of well under 2
 * MB named like the next metadata version, inflating past the default limit of 256 MiB. The table
 * fails naming the file, the replica is left as it was, and the service and its other tables go on.
 * (The campaign's service sets a small limit of its own, so it cannot show the default.)
 */
class MetadataBombServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final long MIB = 1024 * 1024;

  /** Removed by JUnit once the class is done, with everything the service wrote. */
  @TempDir static Path tempDir;

  private static Path root;
  private static Path warehouse;
  private static Path replicas;

  private static RunningService service;

  @BeforeAll
  static void start() throws IOException {
    root = tempDir.toRealPath();
    warehouse = root.resolve("warehouse");
    replicas = root.resolve("replica");
    service =
        RunningService.start(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "file:" + warehouse,
                "replicator.rules[0].targets[0].name", "a",
                "replicator.rules[0].targets[0].prefix", "file:" + replicas,
                "replicator.reconciliation-interval", "300ms",
                "replicator.retry.initial-backoff", "200ms",
                "replicator.retry.max-backoff", "1s"));
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  @Test
  void aGzipBombFailsItsTableNamingTheFileWhileTheServiceAndOtherTablesGoOn() throws IOException {
    SourceTable bombed = SourceTable.create(warehouse.resolve("ns/bombed"), 2);
    bombed.append("a", 2);
    SourceTable healthy = SourceTable.create(warehouse.resolve("ns/healthy"), 2);
    healthy.append("a", 2);
    awaitState("bombed", "IN_SYNC");
    awaitState("healthy", "IN_SYNC");
    Map<String, String> replicaBefore = files(replicas.resolve("ns/bombed"));

    // the next version of a Hadoop table (v1: create, v2: append), gzip-compressed as Iceberg names
    // it
    Path bomb = warehouse.resolve("ns/bombed/metadata/v3.metadata.json.gz");
    byte[] bytes = GzipBomb.of("{", ' ', 300 * MIB, "}");
    assertThat(bytes.length).isLessThan((int) (2 * MIB));
    Files.write(bomb, bytes);

    JsonNode failed = awaitState("bombed", "FAILED");
    assertThat(failed.path("lastError").asText())
        .startsWith("Cannot read table metadata ")
        .contains(
            warehouse
                + "/ns/bombed/metadata/v3.metadata.json.gz: larger than the configured limit of "
                + 256 * MIB
                + " bytes");
    assertThat(files(replicas.resolve("ns/bombed"))).isEqualTo(replicaBefore);

    healthy.append("b", 1);
    // the status says IN_SYNC with v2 until the service has seen the append: wait for v3 itself
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              JsonNode healthyStatus = service.http.get("/api/replications/a/ns/healthy").json();
              assertThat(healthyStatus.path("state").asText()).isEqualTo("IN_SYNC");
              assertThat(healthyStatus.path("lastSourceMetadataFile").asText())
                  .endsWith("/v3.metadata.json");
            });
    assertThat(service.http.get("/actuator/health").status()).isEqualTo(200);
  }

  private static JsonNode awaitState(String table, String state) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              HttpJson.Response response = service.http.get("/api/replications/a/ns/" + table);
              assertThat(response.status()).as("ns/%s: %s", table, response.body()).isEqualTo(200);
              assertThat(response.json().path("state").asText())
                  .as("ns/%s: %s", table, response.body())
                  .isEqualTo(state);
              last[0] = response.json();
            });
    return last[0];
  }

  /** Every file under a folder, by path relative to it, as SHA-256 of its bytes. */
  private static Map<String, String> files(Path dir) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(dir.relativize(p).toString(), Campaign.sha256(Files.readAllBytes(p)));
      }
    }
    return files;
  }
}
