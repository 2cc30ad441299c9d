package io.icerepl.app.service.metrics;

import io.icerepl.app.engine.worker.TableChecks;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * {@link ReplicationHealthIndicator#DEGRADED} while reconciliation's check of a table runs past its
 * deadline ({@link TableChecks}): that table's replica is not reconciled, the other tables are. The
 * detail {@code stuck} names each such table as {@code <target>/<table>}.
 */
@Component("reconciliation")
public class ReconciliationHealthIndicator implements HealthIndicator {
  private final TableChecks checks;

  public ReconciliationHealthIndicator(TableChecks checks) {
    this.checks = checks;
  }

  @Override
  public Health health() {
    return StuckTasks.health(checks.stuck());
  }
}
