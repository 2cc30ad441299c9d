package io.icerepl.app.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.service.RunningService;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * One service on the embedded S3 and SQS shared by the campaign classes that run at once (started
 * by the first, stopped when the last has finished, so no failing table keeps retrying while the
 * rest of the build runs): rule {@code lake} replicates {@code s3://source/warehouse} to target
 * {@code a} at {@code s3://replica/warehouse}; events are the only triggers (the reconciliation
 * pass runs once at start, then hourly), so a case controls exactly when its table is looked at. A
 * healthy table {@code ns/healthy} under the same rule must keep replicating after every case.
 */
final class Campaign {
  static final Duration PATIENCE = Duration.ofSeconds(45);
  static final String SOURCE = "source";
  static final String REPLICA = "replica";
  static final String QUEUE = "events";

  /** A bucket no rule allows: tables must not name files in it. */
  static final String ELSEWHERE = "elsewhere";

  /** The rule's allowed source prefix, for data kept outside the tables' folders. */
  static final String ALLOWED = "s3://shared-data/warehouse";

  /** The configured {@code replicator.max-metadata-bytes}. */
  static final long MAX_METADATA_BYTES = 64 * 1024;

  static final int MAX_RECEIVES = 3;
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "category", Types.StringType.get()));
  static final ObjectMapper JSON = new ObjectMapper();

  static EmbeddedS3 s3;
  static EmbeddedSqs sqs;
  static S3Client s3Client;
  static SqsClient sqsClient;
  static String queueUrl;
  static String dlqUrl;
  static S3Warehouse warehouse;
  static RunningService service;
  static Table healthy;
  private static long nextId = 1;
  private static boolean started;

  private Campaign() {}

  static synchronized void start() {
    users++;
    if (started) {
      return;
    }
    s3 = EmbeddedS3.start();
    sqs = EmbeddedSqs.start();
    s3.createBucket(SOURCE);
    s3.createBucket(REPLICA);
    s3.createBucket(ELSEWHERE);
    s3.createBucket("shared-data");
    s3Client = s3.client();
    sqsClient = sqs.client();
    queueUrl = sqs.createQueueWithDeadLetterQueue(QUEUE, MAX_RECEIVES, 1);
    dlqUrl = sqsClient.getQueueUrl(r -> r.queueName(QUEUE + "-dlq")).queueUrl();
    warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);

    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "lake");
    properties.put("replicator.rules[0].source", "s3://source/warehouse");
    properties.put("replicator.rules[0].targets[0].name", "a");
    properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/warehouse");
    properties.put("replicator.rules[0].allowed-source-prefixes[0]", ALLOWED);
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    properties.put("replicator.s3.retry.initial-backoff", "PT0.05S");
    properties.put("replicator.s3.retry.max-attempts", "2");
    properties.put("replicator.reconciliation-interval", "PT1H");
    properties.put("replicator.retry.initial-backoff", "PT0.5S");
    properties.put("replicator.retry.max-backoff", "PT2S");
    properties.put("replicator.max-metadata-bytes", (MAX_METADATA_BYTES / 1024) + "KB");
    properties.put("replicator.sqs.enabled", "true");
    properties.put("replicator.sqs.queue", QUEUE);
    properties.put("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString());
    properties.put("spring.cloud.aws.sqs.listener.poll-timeout", "1s");
    properties.put("spring.cloud.aws.region.static", "us-east-1");
    properties.put("spring.cloud.aws.credentials.access-key", EmbeddedS3.ACCESS_KEY);
    properties.put("spring.cloud.aws.credentials.secret-key", EmbeddedS3.SECRET_KEY);
    service = RunningService.start(properties);
    started = true;
    Runtime.getRuntime().addShutdownHook(new Thread(Campaign::stop));

    healthy = create("healthy");
    append(healthy, 2);
    publish(healthy);
    awaitInSync("healthy");
  }

  /** The campaign classes running on the service now. */
  private static int users;

  /**
   * A campaign class has run all its cases: once no other one runs, the service stops, so its
   * failing tables do not go on retrying beside the test classes that follow in this JVM (a class
   * that comes later starts a new one).
   */
  static synchronized void finished(Class<?> campaignClass) {
    users--;
    if (users == 0) {
      stop();
    }
  }

  private static synchronized void stop() {
    if (!started) {
      return;
    }
    started = false;
    service.close();
    warehouse.close();
    s3Client.close();
    sqsClient.close();
    sqs.close();
    s3.close();
  }

  // --- source side -------------------------------------------------------------------------

  static Table create(String name) {
    return warehouse.create(
        "ns", name, SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
  }

  /** A table in sync on the replica, ready for bad input. */
  static Table replicated(String name) {
    Table table = create(name);
    append(table, 3);
    publish(table);
    awaitInSync(name);
    return table;
  }

  static DataFile append(Table table, int rows) {
    DataFile file = writeData(table, rows);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  static DataFile writeData(Table table, int rows) {
    GenericRecord record = GenericRecord.create(table.schema());
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", nextId++, "category", "c")));
    }
    return TableWrites.writeData(table, null, records);
  }

  static String metadataFile(Table table) {
    return S3Warehouse.metadataFile(table);
  }

  static String key(String location) {
    String prefix = "s3://" + SOURCE + "/";
    assertThat(location).startsWith(prefix);
    return location.substring(prefix.length());
  }

  static void publish(Table table) {
    publishKey(key(metadataFile(table)));
  }

  static void publishKey(String key) {
    send(S3EventMessages.objectCreated(SOURCE, key, 1));
  }

  static void send(String body) {
    sqsClient.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body));
  }

  static byte[] read(String bucket, String key) {
    return s3Client.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
  }

  static void put(String bucket, String key, byte[] bytes) {
    s3Client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
  }

  static void delete(String bucket, String key) {
    s3Client.deleteObject(b -> b.bucket(bucket).key(key));
  }

  /** The version number of a catalog-style metadata file name {@code <V>-<uuid>.metadata.json}. */
  static int version(String metadataFile) {
    String name = metadataFile.substring(metadataFile.lastIndexOf('/') + 1);
    return Integer.parseInt(name.substring(0, name.indexOf('-')));
  }

  /** The location next to the current metadata file for version {@code <V+1>}, catalog-style. */
  static String nextMetadataFile(Table table) {
    String current = metadataFile(table);
    String folder = current.substring(0, current.lastIndexOf('/') + 1);
    return folder + String.format("%05d-%s.metadata.json", version(current) + 1, UUID.randomUUID());
  }

  /**
   * The current metadata JSON, as the next version would start from it (its log names the current
   * file).
   */
  static ObjectNode nextMetadataJson(Table table) {
    String current = metadataFile(table);
    try {
      ObjectNode json = (ObjectNode) JSON.readTree(read(SOURCE, key(current)));
      json.withArray("metadata-log")
          .addObject()
          .put("timestamp-ms", json.get("last-updated-ms").asLong())
          .put("metadata-file", current);
      json.put("last-updated-ms", json.get("last-updated-ms").asLong() + 1);
      return json;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Puts a hand-edited copy of the current metadata as the next version and publishes its event.
   */
  static String commitEdited(Table table, Consumer<ObjectNode> edit) {
    ObjectNode json = nextMetadataJson(table);
    edit.accept(json);
    try {
      return commitRaw(table, JSON.writeValueAsBytes(json));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String commitRaw(Table table, byte[] content) {
    String file = nextMetadataFile(table);
    put(SOURCE, key(file), content);
    publishKey(key(file));
    return file;
  }

  // --- replica side ------------------------------------------------------------------------

  /** Every object under a replica table's prefix, by key, as SHA-256 of its bytes. */
  static Map<String, String> replicaObjects(String table) {
    return objects(REPLICA, "warehouse/ns/" + table + "/");
  }

  static Map<String, String> objects(String bucket, String prefix) {
    Map<String, String> objects = new TreeMap<>();
    for (S3Object o :
        s3Client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
      try {
        objects.put(o.key(), sha256(read(bucket, o.key())));
      } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
        // written and removed again by a failing run while we listed: not part of the replica
      }
    }
    return objects;
  }

  /** Keys only: a whole-bucket listing races with the leases the service creates and deletes. */
  static java.util.List<String> keys(String bucket, String prefix) {
    java.util.List<String> keys = new java.util.ArrayList<>();
    for (S3Object o :
        s3Client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
      keys.add(o.key());
    }
    return keys;
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // --- the service -------------------------------------------------------------------------

  static Optional<JsonNode> status(String table) {
    for (JsonNode s : service.http.get("/api/replications").json()) {
      if (s.path("table").asText().equals("ns/" + table) && s.path("target").asText().equals("a")) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  static void awaitInSync(String table) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              JsonNode status =
                  status(table).orElseThrow(() -> new AssertionError("no status for ns/" + table));
              assertThat(status.path("state").asText())
                  .as("ns/%s: %s", table, status)
                  .isEqualTo("IN_SYNC");
            });
  }

  /** Waits for the state and returns the status, whose last error holds every fragment. */
  static JsonNode awaitState(String table, String state, String... fragments) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              JsonNode status =
                  status(table).orElseThrow(() -> new AssertionError("no status for ns/" + table));
              assertThat(status.path("state").asText())
                  .as("ns/%s: %s", table, status)
                  .isEqualTo(state);
              String error = status.path("lastError").asText();
              for (String fragment : fragments) {
                assertThat(error).as("ns/%s last error", table).contains(fragment);
              }
              last[0] = status;
            });
    return last[0];
  }

  /**
   * No message is left on the queue, visible or in flight: each was acknowledged or dead-lettered.
   */
  static void awaitQueueDrained() {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              Map<QueueAttributeName, String> attributes =
                  sqsClient
                      .getQueueAttributes(
                          GetQueueAttributesRequest.builder()
                              .queueUrl(queueUrl)
                              .attributeNames(
                                  QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                  QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)
                              .build())
                      .attributes();
              assertThat(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                  .as("visible")
                  .isEqualTo("0");
              assertThat(
                      attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                  .as("in flight")
                  .isEqualTo("0");
            });
  }

  /** Every body taken off the dead-letter queue so far (each received once, then deleted). */
  private static final List<String> DEAD_LETTERS = new ArrayList<>();

  /** Waits for a message holding {@code marker} in the dead-letter queue, and returns its body. */
  static String awaitDeadLettered(String marker) {
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              synchronized (DEAD_LETTERS) {
                for (Message m :
                    sqsClient
                        .receiveMessage(
                            ReceiveMessageRequest.builder()
                                .queueUrl(dlqUrl)
                                .maxNumberOfMessages(10)
                                .waitTimeSeconds(1)
                                .build())
                        .messages()) {
                  DEAD_LETTERS.add(m.body());
                  sqsClient.deleteMessage(b -> b.queueUrl(dlqUrl).receiptHandle(m.receiptHandle()));
                }
                assertThat(DEAD_LETTERS)
                    .as("dead-lettered messages")
                    .anyMatch(b -> b.contains(marker));
              }
            });
    synchronized (DEAD_LETTERS) {
      return DEAD_LETTERS.stream().filter(b -> b.contains(marker)).findFirst().orElseThrow();
    }
  }

  /** The healthy table under the same rule takes a new commit and gets in sync with it. */
  static void healthyTableKeepsReplicating() {
    append(healthy, 1);
    publish(healthy);
    String head = metadataFile(healthy);
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              JsonNode status = status("healthy").orElseThrow();
              assertThat(status.path("state").asText())
                  .as("healthy: %s", status)
                  .isEqualTo("IN_SYNC");
              assertThat(status.path("lastSourceMetadataFile").asText()).isEqualTo(head);
            });
  }

  /** The campaign's common checks after a bad input made a table fail (or wait, or diverge). */
  static void assertContained(String table, Map<String, String> replicaBefore) {
    JsonNode failed = status(table).orElseThrow();
    assertThat(replicaObjects(table))
        .as("replica objects of ns/%s after the failure", table)
        .isEqualTo(replicaBefore);
    awaitQueueDrained();
    healthyTableKeepsReplicating();
    // a retry ran since (back-off 0.5 s → 2 s), with the same outcome, and still wrote nothing
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              JsonNode now = status(table).orElseThrow();
              assertThat(now.path("lastRunAt").asText())
                  .as("ns/%s retried", table)
                  .isNotEqualTo(failed.path("lastRunAt").asText());
              assertThat(now.path("state").asText()).isEqualTo(failed.path("state").asText());
              assertThat(now.path("lastError").asText())
                  .isEqualTo(failed.path("lastError").asText());
            });
    assertThat(replicaObjects(table))
        .as("replica objects of ns/%s after its retries", table)
        .isEqualTo(replicaBefore);
  }
}
