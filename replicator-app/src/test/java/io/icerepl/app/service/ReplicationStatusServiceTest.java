package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.ShiftableClock;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Status, lag and the failure metrics when replication does not succeed: a table that fails from
 * its first run, a replica changed behind the replicator's back, a rule whose source cannot be
 * listed, and a restart over the same stores. Time is moved forward by the service's clock, so lag
 * shows without waiting. The steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationStatusServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /** Removed by JUnit once the class is done, with everything the service wrote. */
  @TempDir static Path tempDir;

  private static Path root;
  private static Path warehouse;
  private static Path replicas;
  private static final ShiftableClock CLOCK = new ShiftableClock();
  private static final Map<String, SourceTable> SOURCES = new HashMap<>();

  private static RunningService service;

  @BeforeAll
  static void start() throws IOException {
    root = tempDir.toRealPath();
    warehouse = root.resolve("warehouse");
    replicas = root.resolve("replica");
    for (String name : new String[] {"broken", "edited", "steady"}) {
      SourceTable source = SourceTable.create(warehouse.resolve("ns/" + name), 2);
      source.append("a", 2);
      SOURCES.put(name, source);
    }
    // fails from its very first run
    truncate(
        Path.of(URI.create(SOURCES.get("broken").table.currentSnapshot().manifestListLocation())));
    service = startService();
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  private static RunningService startService() {
    return RunningService.start(
        Map.ofEntries(
            Map.entry("replicator.rules[0].name", "lake"),
            Map.entry("replicator.rules[0].source", "file:" + warehouse),
            Map.entry("replicator.rules[0].targets[0].name", "a"),
            Map.entry("replicator.rules[0].targets[0].prefix", "file:" + replicas),
            // a source on an S3 that refuses connections on loopback: its listing fails
            Map.entry("replicator.rules[1].name", "unreachable"),
            Map.entry("replicator.rules[1].source", "s3://unreachable/warehouse"),
            Map.entry("replicator.rules[1].targets[0].name", "a"),
            Map.entry(
                "replicator.rules[1].targets[0].prefix", "file:" + root.resolve("unreachable")),
            Map.entry("replicator.s3.source.endpoint", "http://127.0.0.1:9"),
            Map.entry("replicator.s3.source.access-key-id", "none"),
            Map.entry("replicator.s3.source.secret-access-key", "none"),
            Map.entry("replicator.s3.source.path-style", "true"),
            Map.entry("replicator.s3.retry.max-attempts", "1"),
            Map.entry("replicator.reconciliation-interval", "300ms"),
            Map.entry("replicator.retry.initial-backoff", "200ms"),
            Map.entry("replicator.retry.max-backoff", "1s"),
            Map.entry("replicator.sqs.enabled", "false")),
        Map.of("clock", CLOCK));
  }

  @Test
  @Order(1)
  void aTableFailingFromItsFirstRunPublishesGrowingLagAndCountsAsFailed() {
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(status("broken").path("state").asText()).isEqualTo("FAILED");
              assertThat(status("edited").path("state").asText()).isEqualTo("IN_SYNC");
              assertThat(status("steady").path("state").asText()).isEqualTo("IN_SYNC");
            });
    long before = status("broken").path("lagSeconds").asLong();

    CLOCK.advance(Duration.ofMinutes(10));

    assertThat(status("broken").path("lagSeconds").asLong()).isGreaterThanOrEqualTo(before + 600);
    assertThat(status("steady").path("lagSeconds").asLong()).isZero();
    String prometheus = prometheus();
    assertThat(gauge(prometheus, "replicator_lag_seconds", "table=\"ns/broken\""))
        .isGreaterThanOrEqualTo(600);
    assertThat(gauge(prometheus, "replicator_lag_seconds", "table=\"ns/steady\"")).isZero();
    assertThat(gauge(prometheus, "replicator_failed_tables", "")).isEqualTo(1);
    assertThat(gauge(prometheus, "replicator_diverged_tables", "")).isZero();
  }

  @Test
  @Order(2)
  void aReplicaChangedBehindTheReplicatorsBackIsDivergedCountsAsFailedAndItsLagGrows() {
    Table replica = SourceTable.TABLES.load(replicaLocation("edited"));
    replica.updateProperties().set("owner", "someone else").commit();

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> assertThat(status("edited").path("state").asText()).isEqualTo("DIVERGED"));
    CLOCK.advance(Duration.ofMinutes(10));

    assertThat(status("edited").path("lagSeconds").asLong()).isGreaterThanOrEqualTo(600);
    assertThat(gauge(prometheus(), "replicator_failed_tables", "")).isEqualTo(2);
    assertThat(gauge(prometheus(), "replicator_diverged_tables", "")).isEqualTo(1);
    assertThat(
            service
                .http
                .get("/actuator/health")
                .json()
                .path("components")
                .path("replication")
                .path("details")
                .path("failed")
                .toString())
        .contains("a/ns/broken", "a/ns/edited");
  }

  @Test
  @Order(3)
  void aRuleWhoseSourceCannotBeListedShowsInHealthAndMetrics() {
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              JsonNode health = service.http.get("/actuator/health").json();
              assertThat(health.path("status").asText()).isEqualTo("DEGRADED");
              assertThat(
                      health
                          .path("components")
                          .path("replication")
                          .path("details")
                          .path("failedDiscoveries")
                          .path("unreachable")
                          .asText())
                  .contains("s3://unreachable/warehouse");
              assertThat(gauge(prometheus(), "replicator_failed_discoveries", "")).isEqualTo(1);
            });
  }

  @Test
  @Order(4)
  void afterARestartTheStatusShowsTheLastReplicatedVersionAndTheLagOfATableBehind()
      throws IOException {
    String replicated = status("steady").path("lastSourceMetadataFile").asText();
    service.close();
    SOURCES.get("steady").append("b", 3);

    // no run can commit while the lock is held: what shows is what the service read at start-up
    try (ObjectStore.Lock lock = new LocalObjectStore().lock(replicaLocation("steady"))) {
      CLOCK.advance(Duration.ofMinutes(10));
      service = startService();

      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () -> {
                JsonNode steady = status("steady");
                assertThat(steady.path("lastSourceMetadataFile").asText()).isEqualTo(replicated);
                assertThat(steady.path("lagSeconds").asLong()).isGreaterThanOrEqualTo(600);
                assertThat(steady.path("lagSnapshots").asInt()).isEqualTo(1);
                assertThat(gauge(prometheus(), "replicator_lag_seconds", "table=\"ns/steady\""))
                    .isGreaterThanOrEqualTo(600);
                assertThat(gauge(prometheus(), "replicator_failed_tables", "")).isEqualTo(2);
              });
    }

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              JsonNode steady = status("steady");
              assertThat(steady.path("state").asText()).isEqualTo("IN_SYNC");
              assertThat(steady.path("lagSeconds").asLong()).isZero();
            });
    Table source = SourceTable.TABLES.load(SOURCES.get("steady").location);
    Table replica = SourceTable.TABLES.load(replicaLocation("steady"));
    for (org.apache.iceberg.Snapshot snapshot : source.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(source, snapshot.snapshotId()))
          .isNotEmpty();
    }
  }

  private static JsonNode status(String table) {
    HttpJson.Response response = service.http.get("/api/replications/a/ns/" + table);
    assertThat(response.status()).as("status of %s", table).isEqualTo(200);
    return response.json();
  }

  private static String prometheus() {
    return service.http.get("/actuator/prometheus").body();
  }

  /** The value of a sample of {@code name} whose labels contain {@code label}. */
  static double gauge(String prometheus, String name, String label) {
    Matcher sample = Pattern.compile("(?m)^" + name + "(\\{[^}]*})? (\\S+)$").matcher(prometheus);
    while (sample.find()) {
      if (sample.group(1) == null ? label.isEmpty() : sample.group(1).contains(label)) {
        return Double.parseDouble(sample.group(2));
      }
    }
    throw new AssertionError("no sample " + name + " with " + label + " in:\n" + prometheus);
  }

  private static String replicaLocation(String table) {
    return "file:" + replicas.resolve("ns/" + table);
  }

  private static void truncate(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }
}
