package io.icerepl.app.service.events;

import io.awspring.cloud.sqs.annotation.SqsListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Receives S3 events from the configured queue. A message is acknowledged when it was parsed and
 * its tables triggered; an exception leaves it on the queue to be received again, and the queue's
 * redrive policy moves it to the dead-letter queue after its last receive.
 */
@Component
@ConditionalOnProperty(prefix = "replicator.sqs", name = "enabled", havingValue = "true")
public class SqsEventListener {
  private final EventIntake intake;

  public SqsEventListener(EventIntake intake) {
    this.intake = intake;
  }

  @SqsListener("${replicator.sqs.queue}")
  public void onMessage(String message) {
    intake.accept(message);
  }
}
