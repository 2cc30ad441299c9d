package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3FaultInjector;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadataParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The service end to end on the embedded S3 and SQS: source tables committed by the Iceberg library
 * (S3FileIO) to a source bucket, S3 events published as S3 would, two target buckets, throttling
 * injected on a share of S3 answers, and every replica read back by the Iceberg library at every
 * source snapshot. The steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3ReplicationServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "category", Types.StringType.get()));
  private static final List<String> TARGETS = List.of("a", "b");

  private static EmbeddedS3 s3;
  private static EmbeddedSqs sqs;
  private static SqsClient sqsClient;
  private static String queueUrl;
  private static S3Warehouse warehouse;
  private static S3FileIO io;
  private static S3FaultInjector throttling;
  private static RunningService service;
  private static final Map<String, Table> SOURCES = new HashMap<>();
  private static final Map<String, Map<Long, List<String>>> ROWS = new HashMap<>();
  private static long nextId = 1;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.start();
    sqs = EmbeddedSqs.start();
    for (String bucket : List.of("source", "replica-a", "replica-b")) {
      s3.createBucket(bucket);
    }
    queueUrl = sqs.createQueueWithDeadLetterQueue("events", 5, 5);
    sqsClient = sqs.client();
    warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);
    io = new S3FileIO();
    io.initialize(EmbeddedS3FileIO.properties(s3));
    // every 5th answer to reads and writes is 503 SlowDown: everything must still replicate
    throttling =
        new S3FaultInjector(5, Set.of("GetObject", "PutObject", "HeadObject", "CopyObject"));
    service = startService();
  }

  private static RunningService startService() {
    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "lake");
    properties.put("replicator.rules[0].source", "s3://source/warehouse");
    for (int i = 0; i < TARGETS.size(); i++) {
      properties.put("replicator.rules[0].targets[" + i + "].name", TARGETS.get(i));
      properties.put(
          "replicator.rules[0].targets[" + i + "].prefix",
          "s3://replica-" + TARGETS.get(i) + "/warehouse");
    }
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    properties.put("replicator.s3.retry.initial-backoff", "PT0.05S");
    properties.put("replicator.reconciliation-interval", "PT3S");
    properties.put("replicator.retry.initial-backoff", "PT0.5S");
    properties.put("replicator.retry.max-backoff", "PT2S");
    properties.put("replicator.sqs.enabled", "true");
    properties.put("replicator.sqs.queue", "events");
    properties.put("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString());
    properties.put("spring.cloud.aws.region.static", "us-east-1");
    properties.put("spring.cloud.aws.credentials.access-key", EmbeddedS3.ACCESS_KEY);
    properties.put("spring.cloud.aws.credentials.secret-key", EmbeddedS3.SECRET_KEY);
    return RunningService.start(properties, Map.of("s3FaultInjector", throttling));
  }

  @AfterAll
  static void stop() {
    service.close();
    warehouse.close();
    io.close();
    sqsClient.close();
    sqs.close();
    s3.close();
  }

  @Test
  @Order(1)
  void sourceCommitsReplicateThroughEventsToTwoTargetsAndReadLikeTheSource() {
    Table t1 = create("t1");
    append(t1, "a", 3);
    append(t1, "b", 2);
    deleteFirstRow(t1);
    t1.updateSchema().addColumn("note", Types.StringType.get()).commit();
    publish(t1);
    append(t1, "a", 1);

    awaitInSync("t1");
    assertReplicasReadLikeTheSource("t1");
  }

  @Test
  @Order(2)
  void duplicatedReorderedAndDroppedEventsStillConverge() {
    Table t2 = create("t2");
    append(t2, "c", 1);
    awaitInSync("t2");
    // per target: one may have committed the create and the first append apart, the other together
    Map<String, Integer> before = new HashMap<>();
    TARGETS.forEach(target -> before.put(target, replicaVersions(target, "t2").size()));
    List<String> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      append(t2, "c", 1, false);
      files.add(S3Warehouse.metadataFile(t2));
    }
    // the third event twice, then the first; the second and the fourth are lost
    publishKey(files.get(2));
    publishKey(files.get(2));
    publishKey(files.get(0));

    awaitInSync("t2");
    assertReplicasReadLikeTheSource("t2");
    for (String target : TARGETS) {
      assertThat(replicaVersions(target, "t2"))
          .as("one replica commit per new source version on %s", target)
          .hasSize(before.get(target) + 4);
    }
  }

  @Test
  @Order(3)
  void aTableWithBadInputFailsWithItsErrorWhileAnotherKeepsReplicating() {
    Table t3 = create("t3");
    append(t3, "a", 2);
    awaitInSync("t3");
    // the next commit's manifest list is cut in half before any event is sent
    append(t3, "b", 2, false);
    String list = t3.currentSnapshot().manifestListLocation();
    truncate(list);
    publish(t3);
    Table t1 = SOURCES.get("t1");
    append(t1, "b", 4);

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              JsonNode status = service.http.get("/api/replications/a/ns/t3").json();
              assertThat(status.path("state").asText()).isEqualTo("FAILED");
              assertThat(status.path("lastError").asText())
                  .contains("Cannot read manifest list " + list);
            });
    awaitInSync("t1");
    assertReplicasReadLikeTheSource("t1");
    assertThat(service.http.get("/actuator/health").json().path("status").asText())
        .isEqualTo("DEGRADED");
  }

  @Test
  @Order(4)
  void twoInstancesOnOneQueueNeverCommitOneSourceVersionTwice() {
    try (RunningService second = startService()) {
      Table t4 = create("t4");
      for (int i = 0; i < 6; i++) {
        append(t4, i % 2 == 0 ? "a" : "b", 2);
        publish(t4); // every event twice: both instances get work
      }
      awaitInSync("t4");
      await()
          .atMost(PATIENCE)
          .untilAsserted(
              () ->
                  assertThat(
                          second
                              .http
                              .get("/api/replications/b/ns/t4")
                              .json()
                              .path("state")
                              .asText())
                      .isIn("IN_SYNC", "BACKFILLING", "LAGGING"));
      for (String target : TARGETS) {
        List<String> sourceFiles = new ArrayList<>();
        for (String version : replicaVersions(target, "t4")) {
          sourceFiles.add(
              replicaProperty(target, "t4", version, ReplicaProperties.SOURCE_METADATA_FILE));
        }
        assertThat(new HashSet<>(sourceFiles))
            .as("source versions committed on %s", target)
            .hasSameSizeAs(sourceFiles);
      }
      assertReplicasReadLikeTheSource("t4");
    }
  }

  @Test
  @Order(5)
  void theStatusApiAndPrometheusReportLagCommitsBytesFailuresAndRetries() {
    JsonNode status = service.http.get("/api/replications/b/ns/t1").json();
    assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");
    assertThat(status.path("lagSeconds").asLong()).isZero();
    assertThat(status.path("commitsTotal").asLong()).isPositive();
    assertThat(status.path("replicaMetadataFile").asText())
        .startsWith("s3://replica-b/warehouse/ns/t1/metadata/v");
    assertThat(service.http.get("/api/replications").json()).hasSizeGreaterThanOrEqualTo(8);

    assertThat(throttling.injected()).as("503 answers injected").isPositive();
    String prometheus = service.http.get("/actuator/prometheus").body();
    assertThat(prometheus)
        .containsPattern(
            "replicator_commits_total\\{[^}]*table=\"ns/t1\"[^}]*target=\"a\"[^}]*} [1-9]")
        .containsPattern(
            "replicator_bytes_copied_total\\{[^}]*table=\"ns/t1\"[^}]*target=\"b\"[^}]*} [1-9]")
        .containsPattern("replicator_failures_total\\{[^}]*table=\"ns/t3\"[^}]*} [1-9]")
        .containsPattern("replicator_lag_seconds\\{[^}]*table=\"ns/t2\"[^}]*} 0")
        .containsPattern("replicator_s3_retries_total(\\{[^}]*})? [1-9]");
  }

  // --- source side -------------------------------------------------------------------------

  private static Table create(String name) {
    Table table =
        warehouse.create(
            "ns",
            name,
            SCHEMA,
            PartitionSpec.builderFor(SCHEMA).identity("category").build(),
            Map.of("format-version", "2"));
    SOURCES.put(name, table);
    ROWS.put(name, new HashMap<>());
    return table;
  }

  private static void append(Table table, String category, int rows) {
    append(table, category, rows, true);
  }

  private static void append(Table table, String category, int rows, boolean publish) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", nextId++, "category", category)));
    }
    table.newAppend().appendFile(TableWrites.writeData(table, partition, records)).commit();
    record(table);
    if (publish) {
      publish(table);
    }
  }

  private static void deleteFirstRow(Table table) {
    var file = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
    table.newRowDelta().addDeletes(TableWrites.writePositionDeletes(table, file, 0)).commit();
    record(table);
    publish(table);
  }

  /** Rows of every snapshot, recorded when written (before anything could expire). */
  private static void record(Table table) {
    String name = table.name().substring(table.name().indexOf('.') + 1);
    for (Snapshot snapshot : table.snapshots()) {
      ROWS.get(name).computeIfAbsent(snapshot.snapshotId(), id -> SourceTable.rows(table, id));
    }
  }

  private static void publish(Table table) {
    publishKey(S3Warehouse.metadataFile(table));
  }

  private static void publishKey(String metadataFile) {
    String key = metadataFile.substring("s3://source/".length());
    sqsClient.sendMessage(
        b -> b.queueUrl(queueUrl).messageBody(S3EventMessages.objectCreated("source", key, 1)));
  }

  private static void truncate(String location) {
    String key = location.substring("s3://source/".length());
    try (S3Client client = s3.client()) {
      byte[] bytes = client.getObjectAsBytes(b -> b.bucket("source").key(key)).asByteArray();
      client.putObject(
          b -> b.bucket("source").key(key),
          RequestBody.fromBytes(java.util.Arrays.copyOf(bytes, bytes.length / 2)));
    }
  }

  // --- replica side ------------------------------------------------------------------------

  private static void awaitInSync(String table) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              for (String target : TARGETS) {
                JsonNode status =
                    service.http.get("/api/replications/" + target + "/ns/" + table).json();
                assertThat(status.path("state").asText())
                    .as("%s on %s: %s", table, target, status)
                    .isEqualTo("IN_SYNC");
                assertThat(status.path("lastSourceMetadataFile").asText())
                    .isEqualTo(S3Warehouse.metadataFile(SOURCES.get(table)));
              }
            });
  }

  private static List<String> replicaVersions(String target, String table) {
    try (S3Client client = s3.client()) {
      return client
          .listObjectsV2(
              b -> b.bucket("replica-" + target).prefix("warehouse/ns/" + table + "/metadata/v"))
          .contents()
          .stream()
          .map(o -> o.key())
          .filter(k -> k.endsWith(".metadata.json"))
          .toList();
    }
  }

  private static String replicaProperty(String target, String table, String key, String property) {
    try (S3Client client = s3.client()) {
      byte[] bytes =
          client.getObjectAsBytes(b -> b.bucket("replica-" + target).key(key)).asByteArray();
      return TableMetadataParser.read(bytes, key).properties().get(property);
    }
  }

  private static void assertReplicasReadLikeTheSource(String table) {
    for (String target : TARGETS) {
      Table replica = HintedReplica.open(io, "s3://replica-" + target + "/warehouse/ns/" + table);
      for (Map.Entry<Long, List<String>> snapshot : ROWS.get(table).entrySet()) {
        assertThat(replica.snapshot(snapshot.getKey()))
            .as("snapshot %s of %s on %s", snapshot.getKey(), table, target)
            .isNotNull();
        assertThat(SourceTable.rows(replica, snapshot.getKey()))
            .as("rows of snapshot %s of %s on %s", snapshot.getKey(), table, target)
            .isEqualTo(snapshot.getValue());
      }
      assertThat(replica.location()).isEqualTo("s3://replica-" + target + "/warehouse/ns/" + table);
    }
  }
}
