package io.icerepl.app.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.TableBusyException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class LagMetricPublisherTest {
  @Test
  void theLineIsAnEmbeddedMetricTheLagAlarmReads() throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochMilli(1_735_689_600_000L), ZoneOffset.UTC);
    StatusBoard board = new StatusBoard(clock, new SimpleMeterRegistry());

    JsonNode line =
        new ObjectMapper().readTree(new LagMetricPublisher(board, clock, "iceberg-repl").line());

    assertThat(line.path("_aws").path("Timestamp").asLong()).isEqualTo(1_735_689_600_000L);
    JsonNode metric = line.path("_aws").path("CloudWatchMetrics").get(0);
    assertThat(metric.path("Namespace").asText()).isEqualTo("IcebergReplicator");
    assertThat(metric.path("Dimensions").get(0).get(0).asText()).isEqualTo("Replicator");
    assertThat(metric.path("Metrics").get(0).path("Name").asText())
        .isEqualTo("ReplicationLagSeconds");
    assertThat(line.path("Replicator").asText()).isEqualTo("iceberg-repl");
    assertThat(line.path("ReplicationLagSeconds").asLong()).isZero();
    assertThat(metric.path("Metrics").get(1).path("Name").asText()).isEqualTo("FailedTables");
    assertThat(line.path("FailedTables").asInt()).isZero();
  }

  @Test
  void theLineCountsFailedAndDivergedReplicasForTheFailedTablesAlarm() throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochMilli(1_735_689_600_000L), ZoneOffset.UTC);
    StatusBoard board = new StatusBoard(clock, new SimpleMeterRegistry());
    board.failed(
        key("ns/t1"),
        new IllegalStateException("Cannot read manifest list x"),
        Duration.ofSeconds(5));
    board.failed(
        key("ns/t2"),
        new DivergedReplicaException("Cannot replicate table t2 into y: changed"),
        Duration.ofSeconds(5));
    board.failed(
        key("ns/t3"), new TableBusyException("Cannot lock table t3: held"), Duration.ofSeconds(5));

    JsonNode line =
        new ObjectMapper().readTree(new LagMetricPublisher(board, clock, "iceberg-repl").line());

    assertThat(line.path("FailedTables").asInt()).isEqualTo(2);
  }

  private static TableKey key(String table) {
    return new TableKey("r", "a", table, "file:/s/" + table, "file:/a/" + table);
  }
}
