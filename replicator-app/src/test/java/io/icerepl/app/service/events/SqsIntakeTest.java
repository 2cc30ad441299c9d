package io.icerepl.app.service.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.app.service.ReplicatorApplication;
import io.icerepl.app.service.status.ReplicationStatus;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * Event intake from a real SQS endpoint (ElasticMQ): the rule's source is on an S3 that refuses
 * connections, so whether an event's location holds a table cannot be checked.
 */
class SqsIntakeTest {
  private static final String QUEUE = "replicator-events";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private static EmbeddedSqs sqs;
  private static SqsClient client;
  private static String queueUrl;
  private static String dlqUrl;
  private static ConfigurableApplicationContext service;

  @TempDir static Path replicas;

  @BeforeAll
  static void start() throws IOException {
    sqs = EmbeddedSqs.start();
    client = sqs.client();
    queueUrl = sqs.createQueueWithDeadLetterQueue(QUEUE, 2, 1);
    dlqUrl = client.getQueueUrl(r -> r.queueName(QUEUE + "-dlq")).queueUrl();
    Map<String, String> properties =
        Map.ofEntries(
            Map.entry("server.port", "0"),
            Map.entry("replicator.rules[0].name", "lake"),
            Map.entry("replicator.rules[0].source", "s3://source-bucket/wh"),
            Map.entry("replicator.rules[0].targets[0].name", "a"),
            Map.entry("replicator.rules[0].targets[0].prefix", "file:" + replicas),
            Map.entry("replicator.reconciliation-interval", "PT1H"),
            Map.entry("replicator.retry.initial-backoff", "PT1M"),
            // an S3 that refuses connections on loopback: the table's run fails at once, and
            // nothing in this test reaches beyond this machine (static keys: no metadata lookups)
            Map.entry("replicator.s3.source.endpoint", "http://127.0.0.1:9"),
            Map.entry("replicator.s3.source.access-key-id", "none"),
            Map.entry("replicator.s3.source.secret-access-key", "none"),
            Map.entry("replicator.s3.source.path-style", "true"),
            Map.entry("replicator.s3.retry.max-attempts", "1"),
            Map.entry("replicator.sqs.enabled", "true"),
            Map.entry("replicator.sqs.queue", QUEUE),
            Map.entry("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString()),
            Map.entry("spring.cloud.aws.sqs.listener.poll-timeout", "1s"),
            Map.entry("spring.cloud.aws.region.static", "us-east-1"),
            Map.entry("spring.cloud.aws.credentials.access-key", "local"),
            Map.entry("spring.cloud.aws.credentials.secret-key", "local-secret"));
    List<String> args = new ArrayList<>();
    properties.forEach((k, v) -> args.add("--" + k + "=" + v));
    service = SpringApplication.run(ReplicatorApplication.class, args.toArray(String[]::new));
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
    if (client != null) {
      client.close();
    }
    if (sqs != null) {
      sqs.close();
    }
  }

  @Test
  void anEventWhoseTableCannotBeListedIsReceivedAgainAndEndsInTheDeadLetterQueueWithoutALane() {
    String message =
        S3EventMessages.objectCreated(
            "source-bucket", "wh/sales/orders/metadata/00004-9f.metadata.json", 1234);
    send(message);

    awaitDeadLettered(message);
    assertThat(status("sales/orders")).isEmpty();
  }

  @Test
  void aMalformedMessageEndsInTheDeadLetterQueueAfterItsReceives() {
    send("{\"Records\": [ not json");

    awaitDeadLettered("{\"Records\": [ not json");
  }

  @Test
  void anEventForANonMetadataKeyIsAcknowledgedAndTriggersNothing() {
    send(
        S3EventMessages.objectCreated("source-bucket", "wh/sales/returns/data/part-0.parquet", 10));
    send(S3EventMessages.objectCreated("other-bucket", "wh/x/metadata/v1.metadata.json", 10));

    awaitQueueEmpty();
    assertThat(status("sales/returns")).isEmpty();
    assertThat(service.getBean(StatusBoard.class).all())
        .noneMatch(s -> s.sourceLocation().startsWith("s3://other-bucket"));
  }

  private static java.util.Optional<ReplicationStatus> status(String table) {
    return service.getBean(StatusBoard.class).all().stream()
        .filter(s -> s.table().equals(table))
        .findFirst();
  }

  private static void awaitDeadLettered(String body) {
    List<Message> dead = new ArrayList<>();
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              dead.addAll(
                  client
                      .receiveMessage(
                          ReceiveMessageRequest.builder()
                              .queueUrl(dlqUrl)
                              .waitTimeSeconds(1)
                              .build())
                      .messages());
              assertThat(dead).extracting(Message::body).contains(body);
            });
  }

  private static void send(String body) {
    client.sendMessage(r -> r.queueUrl(queueUrl).messageBody(body));
  }

  private static void awaitQueueEmpty() {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              Map<QueueAttributeName, String> attributes =
                  client
                      .getQueueAttributes(
                          GetQueueAttributesRequest.builder()
                              .queueUrl(queueUrl)
                              .attributeNames(
                                  QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                  QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)
                              .build())
                      .attributes();
              assertThat(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                  .isEqualTo("0");
              assertThat(
                      attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                  .isEqualTo("0");
            });
  }
}
