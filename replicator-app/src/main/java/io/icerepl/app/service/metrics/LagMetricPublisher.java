package io.icerepl.app.service.metrics;

import io.icerepl.app.service.status.StatusBoard;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the largest replication lag and the number of failed replicas once a minute as a
 * CloudWatch embedded-metric-format log line: the container's log driver ships it and CloudWatch
 * extracts the metrics the lag and failed-tables alarms watch, so the task role needs no CloudWatch
 * permission.
 */
public record LagMetricPublisher(StatusBoard board, Clock clock, String replicatorName) {
  /** A logger of its own, written without any prefix: CloudWatch parses the line as JSON. */
  private static final Logger EMF = LoggerFactory.getLogger("io.icerepl.emf");

  /** The line published now. */
  public String line() {
    long lag = board.maxLagSeconds();
    int failed = board.failedTables();
    return "{\"_aws\":{\"Timestamp\":"
        + clock.millis()
        + ",\"CloudWatchMetrics\":[{\"Namespace\":\"IcebergReplicator\","
        + "\"Dimensions\":[[\"Replicator\"]],\"Metrics\":[{\"Name\":\"ReplicationLagSeconds\",\"Unit\":\"Seconds\"},"
        + "{\"Name\":\"FailedTables\",\"Unit\":\"Count\"}]}]},"
        + "\"Replicator\":\""
        + replicatorName.replace("\"", "")
        + "\",\"ReplicationLagSeconds\":"
        + lag
        + ",\"FailedTables\":"
        + failed
        + "}";
  }

  public void publish() {
    EMF.info(line());
  }
}
