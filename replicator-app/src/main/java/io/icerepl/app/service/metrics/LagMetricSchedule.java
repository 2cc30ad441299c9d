package io.icerepl.app.service.metrics;

import io.icerepl.app.service.status.StatusBoard;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * {@code replicator.metrics.name}: when set (the deployment sets the stack name), the largest lag
 * and the failed-tables count are published every minute for the CloudWatch alarms.
 */
@Component
@ConditionalOnProperty("replicator.metrics.name")
class LagMetricSchedule {
  private final LagMetricPublisher publisher;

  LagMetricSchedule(
      StatusBoard board,
      ObjectProvider<Clock> clock,
      @Value("${replicator.metrics.name}") String name) {
    this.publisher = new LagMetricPublisher(board, clock.getIfAvailable(Clock::systemUTC), name);
  }

  @Scheduled(fixedRate = 60_000)
  void publish() {
    publisher.publish();
  }
}
