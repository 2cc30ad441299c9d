package io.icerepl.app.service.metrics;

import java.util.Map;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of work whose tasks can get stuck past their deadline (reconciliation's table checks,
 * a group's rounds and reads): UP while none is, else {@link ReplicationHealthIndicator#DEGRADED};
 * the detail {@code stuck} names each one and what it is.
 */
final class StuckTasks {
  private StuckTasks() {}

  static Health health(Map<String, String> stuck) {
    return (stuck.isEmpty() ? Health.up() : Health.status(ReplicationHealthIndicator.DEGRADED))
        .withDetail("stuck", stuck)
        .build();
  }
}
