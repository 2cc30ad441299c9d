package io.icerepl.app.service.metrics;

import io.icerepl.app.service.status.ReplicationStates;
import io.icerepl.app.service.status.ReplicationStatus;
import io.icerepl.app.service.status.StatusBoard;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

/**
 * UP when no replica failed, {@value #DEGRADED_CODE} (HTTP 200, some tables still replicate) when
 * some did, DOWN when every known replica failed. Diverged replicas count as failed: they need an
 * operator. Waiting ones do not: they resolve themselves. A rule whose source prefix cannot be
 * listed makes the service at least DEGRADED: its tables are not reconciled, new ones not found.
 *
 * <p>{@value #SPLIT_BRAIN_CODE} (HTTP 200, unless DOWN) when an old primary wrote after failover
 * (OLD_PRIMARY_WROTE): two primaries. Nothing retries that into shape, and the promoted table keeps
 * serving, so it is a status of its own to alert on.
 */
@Component("replication")
public class ReplicationHealthIndicator implements HealthIndicator {
  static final String DEGRADED_CODE = "DEGRADED";
  public static final Status DEGRADED =
      new Status(DEGRADED_CODE, "Some replicas failed; the others replicate");

  static final String SPLIT_BRAIN_CODE = "SPLIT_BRAIN";
  public static final Status SPLIT_BRAIN =
      new Status(SPLIT_BRAIN_CODE, "An old primary wrote after failover; an operator must act");

  private final StatusBoard board;

  public ReplicationHealthIndicator(StatusBoard board) {
    this.board = board;
  }

  @Override
  public Health health() {
    List<ReplicationStatus> all = board.all();
    List<String> failed =
        all.stream()
            .filter(s -> ReplicationStates.needsOperator(s.state()))
            .map(s -> s.target() + "/" + s.table())
            .toList();
    List<String> splitBrain =
        all.stream()
            .filter(s -> ReplicationStates.splitBrain(s.state()))
            .map(s -> s.target() + "/" + s.table())
            .toList();
    Map<String, String> failedDiscoveries = board.failedDiscoveries();
    Health.Builder health =
        !failed.isEmpty() && failed.size() == all.size()
            ? Health.down()
            : !splitBrain.isEmpty()
                ? Health.status(SPLIT_BRAIN)
                : failed.isEmpty() && failedDiscoveries.isEmpty()
                    ? Health.up()
                    : Health.status(DEGRADED);
    return health
        .withDetail("replicas", all.size())
        .withDetail("failed", failed)
        .withDetail("splitBrain", splitBrain)
        .withDetail("failedDiscoveries", failedDiscoveries)
        .build();
  }
}
