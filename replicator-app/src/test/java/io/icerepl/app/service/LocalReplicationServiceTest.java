package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service end to end on local files: one rule, two targets, two tables written by the Iceberg
 * library; the steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalReplicationServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /** Removed by JUnit once the class is done, with everything the service wrote. */
  @TempDir static Path tempDir;

  private static Path root;
  private static Path warehouse;
  private static Map<String, Path> targets;
  private static final Map<String, SourceTable> SOURCES = new HashMap<>();

  private static RunningService service;

  @BeforeAll
  static void start() throws IOException {
    root = tempDir.toRealPath();
    warehouse = root.resolve("warehouse");
    targets = Map.of("a", root.resolve("replica-a"), "b", root.resolve("replica-b"));
    service =
        RunningService.start(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "file:" + warehouse,
                "replicator.rules[0].targets[0].name", "a",
                "replicator.rules[0].targets[0].prefix", "file:" + targets.get("a"),
                "replicator.rules[0].targets[1].name", "b",
                "replicator.rules[0].targets[1].prefix", "file:" + targets.get("b"),
                "replicator.reconciliation-interval", "300ms",
                "replicator.retry.initial-backoff", "200ms",
                "replicator.retry.max-backoff", "1s",
                // the on-demand expiry of step 5 needs the rule's retention enabled
                "replicator.rules[0].retention.enabled", "true"));
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  @Test
  @Order(1)
  void backfillsEveryTableToEveryTargetWithTheRowsOfEverySnapshot() {
    for (String name : List.of("t1", "t2")) {
      SourceTable source = SourceTable.create(warehouse.resolve("ns/" + name), 2);
      source.append("a", 3);
      source.append("b", 2);
      SOURCES.put(name, source);
    }

    awaitInSync(List.of("t1", "t2"));

    assertThat(replications()).hasSize(4);
    JsonNode status = http().get("/api/replications/a/ns/t1").json();
    assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");
    assertThat(status.path("lagSeconds").asLong()).isZero();
    assertThat(status.path("lagSnapshots").asInt()).isZero();
    assertThat(status.path("commitsTotal").asLong()).isPositive();
    assertThat(status.path("bytesCopiedTotal").asLong()).isPositive();
    assertThat(status.path("replicaMetadataFile").asText())
        .startsWith("file:" + targets.get("a").resolve("ns/t1"));
    assertThat(status.path("lastSourceMetadataFile").asText()).endsWith(".metadata.json");
    // the writers' clocks and the service's are the same clock
    assertThat(status.has("writerClockAheadSeconds")).isTrue();
    assertThat(status.path("writerClockAheadSeconds").asDouble()).isZero();
    assertThat(status.path("writerClockNote").isNull()).isTrue();
    assertReplicasMatch(List.of("t1", "t2"));
  }

  @Test
  @Order(2)
  void catchesUpWithNewSourceCommits() {
    SOURCES.get("t1").append("c", 4);
    SOURCES.get("t2").append("c", 1);
    SOURCES.get("t1").append("a", 1);

    awaitInSync(List.of("t1", "t2"));
    assertReplicasMatch(List.of("t1", "t2"));
  }

  @Test
  @Order(3)
  void aBrokenTableFailsWithItsSpecificErrorWhileTheOthersGoOn() throws IOException {
    SourceTable t2 = SOURCES.get("t2");
    String manifestList;
    // hold the replicas' table locks so no run reads the new commit before it is broken
    ObjectStore store = new LocalObjectStore();
    try (ObjectStore.Lock a = store.lock(replicaLocation("a", "t2"));
        ObjectStore.Lock b = store.lock(replicaLocation("b", "t2"))) {
      t2.append("d", 2);
      manifestList = t2.table.currentSnapshot().manifestListLocation();
      truncate(Path.of(URI.create(manifestList)));
    }
    SOURCES.get("t1").append("d", 3);

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              for (String target : targets.keySet()) {
                JsonNode status = http().get("/api/replications/" + target + "/ns/t2").json();
                assertThat(status.path("state").asText()).isEqualTo("FAILED");
                assertThat(status.path("lastError").asText())
                    .contains("Cannot read manifest list " + manifestList);
              }
            });
    awaitInSync(List.of("t1"));
    assertReplicasMatch(List.of("t1"));

    String prometheus = http().get("/actuator/prometheus").body();
    assertThat(prometheus)
        .containsPattern(
            "replicator_commits_total\\{[^}]*table=\"ns/t1\"[^}]*target=\"a\"[^}]*} [1-9]")
        .containsPattern(
            "replicator_failures_total\\{[^}]*table=\"ns/t2\"[^}]*target=\"b\"[^}]*} [1-9]")
        .containsPattern("replicator_lag_seconds\\{[^}]*table=\"ns/t1\"[^}]*target=\"b\"[^}]*} 0")
        .containsPattern(
            "replicator_bytes_copied_total\\{[^}]*table=\"ns/t2\"[^}]*target=\"a\"[^}]*} [1-9]");

    HttpJson.Response health = http().get("/actuator/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("status").asText()).isEqualTo("DEGRADED");
  }

  @Test
  @Order(4)
  void anUnknownTableIsNotFound() {
    assertThat(http().get("/api/replications/a/ns/nope").status()).isEqualTo(404);
    assertThat(http().get("/api/replications/c/ns/t1").status()).isEqualTo(404);
    assertThat(http().post("/api/replications/a/ns/nope/expire").status()).isEqualTo(404);
  }

  @Test
  @Order(5)
  void expiringOnDemandReturnsTheRetentionMetrics() {
    HttpJson.Response response = http().post("/api/replications/b/ns/t1/expire");
    assertThat(response.status()).isEqualTo(200);
    JsonNode metrics = response.json();
    assertThat(metrics.has("deletedDataFilesCount")).isTrue();
    assertThat(metrics.path("dryRun").asBoolean()).isFalse();
  }

  private static void awaitInSync(List<String> tables) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              for (String table : tables) {
                Table source = SourceTable.TABLES.load(SOURCES.get(table).location);
                for (String target : targets.keySet()) {
                  JsonNode status =
                      http().get("/api/replications/" + target + "/ns/" + table).json();
                  assertThat(status.path("state").asText())
                      .as(table + " -> " + target)
                      .isEqualTo("IN_SYNC");
                  assertThat(status.path("lastSourceMetadataFile").asText())
                      .endsWith(
                          fileName(
                              ((org.apache.iceberg.HasTableOperations) source)
                                  .operations()
                                  .current()
                                  .metadataFileLocation()));
                }
              }
            });
  }

  private static void assertReplicasMatch(List<String> tables) {
    for (String table : tables) {
      Table source = SourceTable.TABLES.load(SOURCES.get(table).location);
      for (String target : targets.keySet()) {
        Table replica = SourceTable.TABLES.load(replicaLocation(target, table));
        assertThat(replica.currentSnapshot().snapshotId())
            .isEqualTo(source.currentSnapshot().snapshotId());
        for (Snapshot snapshot : source.snapshots()) {
          assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
              .as("%s at snapshot %s on %s", table, snapshot.snapshotId(), target)
              .isEqualTo(SourceTable.rows(source, snapshot.snapshotId()))
              .isNotEmpty();
        }
      }
    }
  }

  private static List<JsonNode> replications() {
    List<JsonNode> all = new java.util.ArrayList<>();
    http().get("/api/replications").json().forEach(all::add);
    return all;
  }

  private static HttpJson http() {
    return service.http;
  }

  private static String replicaLocation(String target, String table) {
    return "file:" + targets.get(target).resolve("ns/" + table);
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static void truncate(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }
}
