package io.icerepl.app.service;

import static io.icerepl.app.service.ReplicationStatusServiceTest.gauge;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.localstack.EmbeddedSqs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The depth of the event queue's dead-letter queue on the embedded SQS, as the service exports it.
 */
class DeadLetterQueueServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final String QUEUE = "replicator-events";

  private static EmbeddedSqs sqs;
  private static SqsClient client;
  private static String dlqUrl;

  @TempDir static Path warehouse;

  @BeforeAll
  static void start() {
    sqs = EmbeddedSqs.start();
    client = sqs.client();
    sqs.createQueueWithDeadLetterQueue(QUEUE, 2, 1);
    dlqUrl = client.getQueueUrl(r -> r.queueName(QUEUE + "-dlq")).queueUrl();
  }

  @AfterAll
  static void stop() {
    client.close();
    sqs.close();
  }

  @Test
  void theDeadLetterQueueNamedInTheSettingsHasItsDepthExported() {
    try (RunningService service = start(QUEUE + "-dlq")) {
      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          gauge(prometheus(service), "replicator_dead_letter_queue_messages", ""))
                      .isZero());

      for (int i = 0; i < 3; i++) {
        client.sendMessage(r -> r.queueUrl(dlqUrl).messageBody("{\"Records\": [ not json"));
      }

      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          gauge(prometheus(service), "replicator_dead_letter_queue_messages", ""))
                      .isEqualTo(3));
      client.purgeQueue(r -> r.queueUrl(dlqUrl));
    }
  }

  @Test
  void aDeadLetterQueueThatCanNoLongerBeReadIsExportedAsNotANumberRatherThanItsLastCount() {
    String doomedUrl = client.createQueue(r -> r.queueName("doomed-dlq")).queueUrl();
    client.sendMessage(r -> r.queueUrl(doomedUrl).messageBody("poison"));
    try (RunningService service = start(doomedUrl)) {
      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          gauge(prometheus(service), "replicator_dead_letter_queue_messages", ""))
                      .isEqualTo(1));

      client.deleteQueue(r -> r.queueUrl(doomedUrl));

      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          gauge(prometheus(service), "replicator_dead_letter_queue_messages", ""))
                      .isNaN());
      assertThat(service.http.get("/actuator/health").json().path("status").asText())
          .isEqualTo("UP");
    }
  }

  private static RunningService start(String deadLetterQueue) {
    // a rule over an empty local folder: a service replicating nothing is refused at start
    return RunningService.start(
        Map.ofEntries(
            Map.entry("replicator.rules[0].name", "lake"),
            Map.entry("replicator.rules[0].source", warehouse.resolve("source").toUri().toString()),
            Map.entry("replicator.rules[0].targets[0].name", "a"),
            Map.entry(
                "replicator.rules[0].targets[0].prefix",
                warehouse.resolve("replica").toUri().toString()),
            Map.entry("replicator.sqs.enabled", "true"),
            Map.entry("replicator.sqs.queue", QUEUE),
            Map.entry("replicator.sqs.dead-letter-queue", deadLetterQueue),
            Map.entry("replicator.sqs.dead-letter-poll-interval", "200ms"),
            Map.entry("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString()),
            Map.entry("spring.cloud.aws.sqs.listener.poll-timeout", "1s"),
            Map.entry("spring.cloud.aws.region.static", "us-east-1"),
            Map.entry("spring.cloud.aws.credentials.access-key", "local"),
            Map.entry("spring.cloud.aws.credentials.secret-key", "local-secret")));
  }

  private static String prometheus(RunningService service) {
    return service.http.get("/actuator/prometheus").body();
  }
}
