package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.TableWrites;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.LoopbackRestCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The service end to end on the embedded S3 and SQS with a rule whose source and target are
 * catalogs: source tables committed through Iceberg's REST catalog (its warehouse on the source
 * bucket), replicas registered in a JDBC catalog on SQLite, and every replica read back through
 * that catalog by the Iceberg library at every source snapshot and ref.
 */
class CatalogServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "data", Types.StringType.get()));

  @TempDir static Path dir;

  private static EmbeddedS3 s3;
  private static EmbeddedSqs sqs;
  private static SqsClient sqsClient;
  private static String queueUrl;
  private static LoopbackRestCatalog server;
  private static RESTCatalog source;
  private static String targetCatalog;
  private static RunningService service;
  private static long nextId = 1;

  @BeforeAll
  static void start() throws Exception {
    s3 = EmbeddedS3.start();
    sqs = EmbeddedSqs.start();
    s3.createBucket("source");
    s3.createBucket("replica");
    queueUrl = sqs.createQueueWithDeadLetterQueue("events", 5, 5);
    sqsClient = sqs.client();
    server =
        new LoopbackRestCatalog(
            "s3://source/wh",
            "jdbc:sqlite:" + dir.resolve("source.db"),
            EmbeddedS3FileIO.catalogProperties(s3));
    source = new RESTCatalog();
    Map<String, String> client = new HashMap<>(EmbeddedS3FileIO.catalogProperties(s3));
    client.put("uri", server.uri());
    source.initialize("prod", client);
    source.createNamespace(Namespace.of("sales"));
    // the service's catalogs name no S3 settings: each takes its side's replicator.s3.* settings
    targetCatalog =
        "name=dr,type=jdbc,uri=jdbc:sqlite:"
            + dir.resolve("replica.db")
            + ",warehouse=s3://replica/wh,jdbc.schema-version=V1";

    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "sales");
    properties.put("replicator.rules[0].source-catalog", "name=prod,type=rest,uri=" + server.uri());
    properties.put("replicator.rules[0].namespaces[0]", "sales");
    properties.put("replicator.rules[0].targets[0].name", "dr");
    properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/wh");
    properties.put("replicator.rules[0].targets[0].catalog", targetCatalog);
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    properties.put("replicator.reconciliation-interval", "PT2S");
    properties.put("replicator.retry.initial-backoff", "PT0.5S");
    properties.put("replicator.retry.max-backoff", "PT2S");
    properties.put("replicator.sqs.enabled", "true");
    properties.put("replicator.sqs.queue", "events");
    properties.put("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString());
    properties.put("spring.cloud.aws.region.static", "us-east-1");
    properties.put("spring.cloud.aws.credentials.access-key", EmbeddedS3.ACCESS_KEY);
    properties.put("spring.cloud.aws.credentials.secret-key", EmbeddedS3.SECRET_KEY);
    service = RunningService.start(properties);
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    source.close();
    server.close();
    sqsClient.close();
    sqs.close();
    s3.close();
  }

  @Test
  void catalogTablesReplicateAndTheirReplicasAreRegisteredInTheTargetCatalog() {
    Table orders =
        source.createTable(
            TableIdentifier.of("sales", "orders"), SCHEMA, PartitionSpec.unpartitioned());
    append(orders, 3);
    append(orders, 2);
    orders.manageSnapshots().createTag("v1", orders.currentSnapshot().snapshotId()).commit();
    awaitRegistered("orders", orders);
    assertReplicaReadsLikeTheSource(orders);

    // the next commit arrives by its S3 event; the head is still asked of the catalog
    append(orders, 4);
    String metadataFile =
        ((org.apache.iceberg.HasTableOperations) orders)
            .operations()
            .current()
            .metadataFileLocation();
    sqsClient.sendMessage(
        b ->
            b.queueUrl(queueUrl)
                .messageBody(
                    S3EventMessages.objectCreated(
                        "source", metadataFile.substring("s3://source/".length()), 1)));
    awaitRegistered("orders", orders);
    assertReplicaReadsLikeTheSource(orders);

    JsonNode status = service.http.get("/api/replications/dr/sales/orders").json();
    assertThat(status.path("sourceTable").asText()).isEqualTo("prod:sales.orders");
    assertThat(status.path("replicaTable").asText()).isEqualTo("dr:sales.orders");
    assertThat(status.path("state").asText()).isEqualTo("IN_SYNC");

    // a table the catalog drops is reported, and its replica kept
    long kept = orders.currentSnapshot().snapshotId();
    source.dropTable(TableIdentifier.of("sales", "orders"), false);
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () ->
                assertThat(
                        service
                            .http
                            .get("/api/replications/dr/sales/orders")
                            .json()
                            .path("state")
                            .asText())
                    .isEqualTo("SOURCE_DROPPED"));
    try (JdbcCatalog target = targetCatalog()) {
      assertThat(
              target
                  .loadTable(TableIdentifier.of("sales", "orders"))
                  .currentSnapshot()
                  .snapshotId())
          .isEqualTo(kept);
    }
  }

  @Test
  void aReplicaRegisteredInTheTargetCatalogIsPromotedThroughItsEntryAndWritersCommitThere() {
    Table returns =
        source.createTable(
            TableIdentifier.of("sales", "returns"), SCHEMA, PartitionSpec.unpartitioned());
    append(returns, 2);
    awaitRegistered("returns", returns);
    returns.refresh();
    long replicated = returns.currentSnapshot().snapshotId();
    String status = "/api/replications/dr/sales/returns";

    HttpJson.Response promote = service.http.post(status + "/promote?mode=now");

    assertThat(promote.status()).as(promote.body()).isEqualTo(200);
    assertThat(promote.json().path("status").asText()).isEqualTo("promoted");
    assertThat(service.http.get(status).json().path("state").asText()).isEqualTo("PROMOTED");
    try (JdbcCatalog target = targetCatalog()) {
      Table promoted = target.loadTable(TableIdentifier.of("sales", "returns"));
      assertThat(promoted.properties())
          .doesNotContainKey("replicator.read-only")
          .containsKey("replicator.epoch");
      assertThat(promoted.currentSnapshot().snapshotId()).isEqualTo(replicated);
      // a writer commits through the entry, as to any table of the catalog
      append(promoted, 1);
      promoted.refresh();
      assertThat(rows(promoted, promoted.currentSnapshot().snapshotId())).hasSize(3);
      assertThat(
              target
                  .loadTable(TableIdentifier.of("sales", "returns"))
                  .currentSnapshot()
                  .snapshotId())
          .isEqualTo(promoted.currentSnapshot().snapshotId())
          .isNotEqualTo(replicated);
    }
  }

  @Test
  void failbackIntoATableOfARestCatalogIsRefusedNamingWhy() {
    Table refunds =
        source.createTable(
            TableIdentifier.of("sales", "refunds"), SCHEMA, PartitionSpec.unpartitioned());
    append(refunds, 2);
    awaitRegistered("refunds", refunds);
    String status = "/api/replications/dr/sales/refunds";
    assertThat(service.http.post(status + "/promote?mode=now").status()).isEqualTo(200);
    refunds.refresh();
    String sourceHead =
        ((HasTableOperations) refunds).operations().current().metadataFileLocation();

    HttpJson.Response failback = service.http.post(status + "/failback");

    assertThat(failback.status()).as(failback.body()).isEqualTo(409);
    assertThat(failback.json().path("error").asText())
        .contains(
            ": its source is a table of catalog:prod, a REST catalog whose entry a fail-back"
                + " cannot move")
        .endsWith("; nothing was written");
    refunds.refresh();
    assertThat(((HasTableOperations) refunds).operations().current().metadataFileLocation())
        .isEqualTo(sourceHead);
  }

  private static void append(Table table, int rows) {
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      GenericRecord record = GenericRecord.create(SCHEMA);
      record.setField("id", nextId++);
      record.setField("data", "row-" + record.getField("id"));
      records.add(record);
    }
    table.newAppend().appendFile(TableWrites.writeData(table, null, records)).commit();
  }

  /** Waits until the target catalog's entry holds the source's current snapshot and refs. */
  private static void awaitRegistered(String name, Table sourceTable) {
    sourceTable.refresh();
    long current = sourceTable.currentSnapshot().snapshotId();
    Map<String, SnapshotRef> refs = sourceTable.refs();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              try (JdbcCatalog target = targetCatalog()) {
                Table replica = target.loadTable(TableIdentifier.of("sales", name));
                assertThat(replica.currentSnapshot()).isNotNull();
                assertThat(replica.currentSnapshot().snapshotId()).isEqualTo(current);
                assertThat(replica.refs()).isEqualTo(refs);
              }
            });
  }

  private static void assertReplicaReadsLikeTheSource(Table sourceTable) {
    sourceTable.refresh();
    try (JdbcCatalog target = targetCatalog()) {
      Table replica = target.loadTable(TableIdentifier.of("sales", "orders"));
      assertThat(replica.location()).startsWith("s3://replica/wh/sales/orders");
      assertThat(replica.properties()).containsEntry("replicator.read-only", "true");
      for (Snapshot snapshot : sourceTable.snapshots()) {
        assertThat(rows(replica, snapshot.snapshotId()))
            .as("snapshot %s", snapshot.snapshotId())
            .isEqualTo(rows(sourceTable, snapshot.snapshotId()));
      }
      Map<String, SnapshotRef> refs = sourceTable.refs();
      assertThat(replica.refs()).isEqualTo(refs);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static JdbcCatalog targetCatalog() {
    JdbcCatalog catalog = new JdbcCatalog();
    Map<String, String> properties = new HashMap<>(EmbeddedS3FileIO.catalogProperties(s3));
    properties.put("uri", "jdbc:sqlite:" + dir.resolve("replica.db"));
    properties.put("warehouse", "s3://replica/wh");
    properties.put("jdbc.schema-version", "V1");
    catalog.initialize("dr", properties);
    return catalog;
  }

  private static List<String> rows(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }
}
