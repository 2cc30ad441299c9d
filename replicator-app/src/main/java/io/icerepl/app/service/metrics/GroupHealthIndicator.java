package io.icerepl.app.service.metrics;

import io.icerepl.app.engine.group.GroupWork;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * {@link ReplicationHealthIndicator#DEGRADED} while a replication group's task (a tagging round, a
 * read of its cut) runs past its deadline ({@link GroupWork}): the group's cut stands still, the
 * other tables replicate. The detail {@code stuck} names each such group and its task.
 */
@Component("groups")
public class GroupHealthIndicator implements HealthIndicator {
  private final GroupWork work;

  public GroupHealthIndicator(GroupWork work) {
    this.work = work;
  }

  @Override
  public Health health() {
    return StuckTasks.health(work.stuck());
  }
}
