package io.icerepl.app.service.events;

import io.icerepl.app.service.config.ReplicatorProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@code replicator_dead_letter_queue_messages}: the messages waiting in the event queue's
 * dead-letter queue ({@code ApproximateNumberOfMessages} of {@code
 * replicator.sqs.dead-letter-queue}), read every {@code replicator.sqs.dead-letter-poll-interval}.
 * It is NaN until the first read and after a failed one, so a count that can no longer be read is
 * never shown as current.
 */
@Component
@ConditionalOnProperty(
    prefix = "replicator.sqs",
    name = {"enabled", "dead-letter-queue"})
public class DeadLetterQueueDepth implements SmartLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterQueueDepth.class);

  private final SqsAsyncClient sqs;
  private final TaskScheduler scheduler;
  private final ReplicatorProperties.Sqs settings;
  // the scheduler's threads also run reconciliation: a read never blocks one, and never overlaps
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile double messages = Double.NaN;
  private volatile String queueUrl;
  // a failure is logged when its kind first appears, not on every read (messages carry request ids)
  private volatile Class<?> lastFailure;
  private ScheduledFuture<?> polling;

  public DeadLetterQueueDepth(
      SqsAsyncClient sqs,
      TaskScheduler scheduler,
      ReplicatorProperties properties,
      MeterRegistry meters) {
    this.sqs = sqs;
    this.scheduler = scheduler;
    this.settings = properties.sqs();
    Gauge.builder("replicator.dead.letter.queue.messages", this, d -> d.messages)
        .description(
            "Messages in the event queue's dead-letter queue (NaN while it cannot be read)")
        .register(meters);
  }

  void read() {
    if (!reading.compareAndSet(false, true)) {
      return;
    }
    // a call that throws at once fails the future like one that fails later
    CompletableFuture.completedFuture(settings.deadLetterQueue())
        .thenCompose(this::queueUrl)
        .thenCompose(
            url ->
                sqs.getQueueAttributes(
                    r ->
                        r.queueUrl(url)
                            .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)))
        .whenComplete(
            (response, error) -> {
              if (error == null) {
                messages =
                    Double.parseDouble(
                        response
                            .attributes()
                            .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
                lastFailure = null;
              } else {
                messages = Double.NaN;
                Throwable cause =
                    error instanceof CompletionException && error.getCause() != null
                        ? error.getCause()
                        : error;
                if (cause.getClass() == lastFailure) {
                  LOG.debug(
                      "Cannot read the depth of dead-letter queue {} again: {}",
                      settings.deadLetterQueue(),
                      cause.toString());
                } else {
                  LOG.warn(
                      "Cannot read the depth of dead-letter queue {}: {}",
                      settings.deadLetterQueue(),
                      cause.toString());
                }
                lastFailure = cause.getClass();
              }
              reading.set(false);
            });
  }

  /**
   * A URL is used as given (the deployment passes one, so no {@code sqs:GetQueueUrl} is needed).
   */
  private CompletableFuture<String> queueUrl(String queue) {
    if (queue.startsWith("https://") || queue.startsWith("http://")) {
      return CompletableFuture.completedFuture(queue);
    }
    String known = queueUrl;
    if (known != null) {
      return CompletableFuture.completedFuture(known);
    }
    return sqs.getQueueUrl(r -> r.queueName(queue)).thenApply(r -> queueUrl = r.queueUrl());
  }

  @Override
  public synchronized void start() {
    polling = scheduler.scheduleWithFixedDelay(this::read, settings.deadLetterPollInterval());
  }

  @Override
  public synchronized void stop() {
    if (polling != null) {
      polling.cancel(false);
      polling = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return polling != null;
  }
}
