package io.icerepl.app.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** Work with a task stuck past its deadline is DEGRADED, naming the task; else UP. */
class StuckTasksTest {
  @Test
  void noStuckTaskIsUp() {
    Health health = StuckTasks.health(Map.of());

    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsEntry("stuck", Map.of());
  }

  @Test
  void aStuckTaskIsDegradedAndNamed() {
    Map<String, String> stuck = Map.of("sales", "tagging round under way since ...");

    Health health = StuckTasks.health(stuck);

    assertThat(health.getStatus()).isEqualTo(ReplicationHealthIndicator.DEGRADED);
    assertThat(health.getDetails()).containsEntry("stuck", stuck);
  }
}
