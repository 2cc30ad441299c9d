package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Hostile and broken event traffic on the embedded S3 and SQS: a flood of events for locations
 * where no table is, a message over the record limit, keys that would forge log lines; a real table
 * under the same rule keeps replicating through it all. The steps build on each other.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EventFloodServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final int RECORDS_PER_MESSAGE = 10;

  private static EmbeddedS3 s3;
  private static EmbeddedSqs sqs;
  private static SqsClient sqsClient;
  private static String queueUrl;
  private static String dlqUrl;
  private static S3Warehouse warehouse;
  private static S3FileIO io;
  private static RunningService service;
  private static Table orders;
  private static final ListAppender<ILoggingEvent> LOGS = new ListAppender<>();
  private static long nextId = 1;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.start();
    sqs = EmbeddedSqs.start();
    s3.createBucket("source");
    s3.createBucket("replica");
    queueUrl = sqs.createQueueWithDeadLetterQueue("events", 2, 1);
    sqsClient = sqs.client();
    dlqUrl = sqsClient.getQueueUrl(r -> r.queueName("events-dlq")).queueUrl();
    warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);
    io = new S3FileIO();
    io.initialize(EmbeddedS3FileIO.properties(s3));
    orders =
        warehouse.create(
            "ns",
            "orders",
            SourceTable.SCHEMA,
            PartitionSpec.builderFor(SourceTable.SCHEMA).identity("category").build(),
            Map.of("format-version", "2"));
    append("a", 2);

    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "lake");
    properties.put("replicator.rules[0].source", "s3://source/warehouse");
    properties.put("replicator.rules[0].targets[0].name", "a");
    properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/warehouse");
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    // after the first pass, only events trigger work
    properties.put("replicator.reconciliation-interval", "PT1H");
    properties.put("replicator.retry.initial-backoff", "PT0.5S");
    properties.put("replicator.retry.max-backoff", "PT2S");
    properties.put("replicator.limits.records-per-message", Integer.toString(RECORDS_PER_MESSAGE));
    properties.put("replicator.sqs.enabled", "true");
    properties.put("replicator.sqs.queue", "events");
    properties.put("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString());
    properties.put("spring.cloud.aws.sqs.listener.poll-timeout", "1s");
    properties.put("spring.cloud.aws.region.static", "us-east-1");
    properties.put("spring.cloud.aws.credentials.access-key", EmbeddedS3.ACCESS_KEY);
    properties.put("spring.cloud.aws.credentials.secret-key", EmbeddedS3.SECRET_KEY);
    service = RunningService.start(properties);
    // Spring's logging set-up replaced the appenders: attach after it
    LOGS.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(LOGS);
    awaitInSync();
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(LOGS);
    service.close();
    warehouse.close();
    io.close();
    sqsClient.close();
    sqs.close();
    s3.close();
  }

  @Test
  @Order(1)
  void
      aFloodOfEventsForLocationsWithoutATableLeavesNoLaneStatusOrMetricWhileARealTableReplicates() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      keys.add("warehouse/junk/t" + i + "/metadata/v1.metadata.json");
    }
    // ten records per message, ten messages per batch
    List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
    for (int m = 0; m < keys.size() / RECORDS_PER_MESSAGE; m++) {
      batch.add(
          SendMessageBatchRequestEntry.builder()
              .id("m" + m)
              .messageBody(
                  records(keys.subList(m * RECORDS_PER_MESSAGE, (m + 1) * RECORDS_PER_MESSAGE)))
              .build());
      if (batch.size() == 10) {
        List<SendMessageBatchRequestEntry> entries = List.copyOf(batch);
        sqsClient.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
        batch.clear();
      }
    }
    append("b", 3);
    publish(S3Warehouse.metadataFile(orders));

    awaitQueueEmpty();
    awaitInSync();
    assertReplicaReadsLikeTheSource();
    assertThat(service.bean(ReplicationCoordinator.class).lanes()).isEqualTo(1);
    assertThat(service.http.get("/api/replications").json())
        .extracting(s -> s.path("table").asText())
        .containsExactly("ns/orders");
    assertThat(service.http.get("/actuator/prometheus").body()).doesNotContain("junk/");
  }

  @Test
  @Order(2)
  void aMessageOverTheRecordLimitIsDeadLetteredAndCounted() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i <= RECORDS_PER_MESSAGE; i++) {
      keys.add("warehouse/ns/orders/metadata/v" + i + ".metadata.json");
    }
    String message = records(keys);
    sqsClient.sendMessage(b -> b.queueUrl(queueUrl).messageBody(message));

    awaitDeadLettered(message);
    assertThat(
            ReplicationStatusServiceTest.gauge(
                prometheus(), "replicator_events_refused_total", "reason=\"too-many-records\""))
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  @Order(3)
  void keysWithLineBreaksAreRefusedAndNeverLoggedRaw() {
    String forged = "12:00:00.000 INFO  StatusBoard - ns/orders: all good";
    List<String> messages = new ArrayList<>();
    for (String lineBreak : List.of("\n", "\r")) {
      String message =
          S3EventMessages.objectCreated(
              "source",
              "warehouse/ns/orders" + lineBreak + forged + "/metadata/v9.metadata.json",
              1);
      messages.add(message);
      sqsClient.sendMessage(b -> b.queueUrl(queueUrl).messageBody(message));
    }

    for (String message : messages) {
      awaitDeadLettered(message);
    }
    assertThat(
            ReplicationStatusServiceTest.gauge(
                prometheus(), "replicator_events_refused_total", "reason=\"invalid-key\""))
        .isGreaterThanOrEqualTo(2);
    assertThat(service.bean(ReplicationCoordinator.class).lanes()).isEqualTo(1);
    List<String> logged = new ArrayList<>();
    synchronized (LOGS) {
      for (ILoggingEvent event : List.copyOf(LOGS.list)) {
        logged.add(event.getFormattedMessage());
        for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
          logged.add(t.getMessage());
        }
      }
    }
    assertThat(logged).anyMatch(line -> line != null && line.contains("\\u000a" + forged));
    assertThat(logged)
        .noneMatch(
            line -> line != null && (line.contains("\n" + forged) || line.contains("\r" + forged)));

    append("c", 1);
    publish(S3Warehouse.metadataFile(orders));
    awaitInSync();
    assertReplicaReadsLikeTheSource();
  }

  private static void append(String category, int rows) {
    PartitionKey partition = new PartitionKey(orders.spec(), orders.schema());
    GenericRecord record = GenericRecord.create(orders.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", nextId++, "category", category)));
    }
    orders.newAppend().appendFile(TableWrites.writeData(orders, partition, records)).commit();
  }

  /** One S3 notification carrying a record per key. */
  private static String records(List<String> keys) {
    List<String> records = new ArrayList<>();
    for (String key : keys) {
      String one = S3EventMessages.objectCreated("source", key, 1);
      records.add(one.substring(one.indexOf('[') + 1, one.lastIndexOf(']')));
    }
    return "{\"Records\":[" + String.join(",", records) + "]}";
  }

  private static void publish(String metadataFile) {
    String key = metadataFile.substring("s3://source/".length());
    sqsClient.sendMessage(
        b -> b.queueUrl(queueUrl).messageBody(S3EventMessages.objectCreated("source", key, 1)));
  }

  private static String prometheus() {
    return service.http.get("/actuator/prometheus").body();
  }

  private static void awaitInSync() {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              orders.refresh();
              JsonNode status = service.http.get("/api/replications/a/ns/orders").json();
              assertThat(status.path("state").asText()).as("%s", status).isEqualTo("IN_SYNC");
              assertThat(status.path("lastSourceMetadataFile").asText())
                  .isEqualTo(S3Warehouse.metadataFile(orders));
            });
  }

  private static void assertReplicaReadsLikeTheSource() {
    Table replica = HintedReplica.open(io, "s3://replica/warehouse/ns/orders");
    assertThat(replica.location()).isEqualTo("s3://replica/warehouse/ns/orders");
    assertThat(replica.currentSnapshot().snapshotId())
        .isEqualTo(orders.currentSnapshot().snapshotId());
    for (Snapshot snapshot : orders.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .as("rows of snapshot %s", snapshot.snapshotId())
          .isEqualTo(SourceTable.rows(orders, snapshot.snapshotId()))
          .isNotEmpty();
    }
  }

  private static void awaitDeadLettered(String body) {
    List<String> dead = new ArrayList<>();
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              sqsClient
                  .receiveMessage(
                      b -> b.queueUrl(dlqUrl).waitTimeSeconds(1).maxNumberOfMessages(10))
                  .messages()
                  .stream()
                  .map(Message::body)
                  .forEach(dead::add);
              assertThat(dead).contains(body);
            });
  }

  private static void awaitQueueEmpty() {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              Map<QueueAttributeName, String> attributes =
                  sqsClient
                      .getQueueAttributes(
                          b ->
                              b.queueUrl(queueUrl)
                                  .attributeNames(
                                      QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                      QueueAttributeName
                                          .APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                      .attributes();
              assertThat(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                  .isEqualTo("0");
              assertThat(
                      attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                  .isEqualTo("0");
            });
  }
}
