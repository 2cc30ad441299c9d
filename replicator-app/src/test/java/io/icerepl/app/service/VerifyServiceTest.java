package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The service's verification on the embedded S3: a table committed by the Iceberg library
 * (S3FileIO) is replicated, verified on the rule's schedule and on demand through the API (only
 * with the token), and a data file deleted on the replica shows in the answer, the table's status
 * and {@code replicator_verify_problems}. The steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VerifyServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String STATUS = "/api/replications/a/ns/orders";

  private static EmbeddedS3 s3;
  private static S3Warehouse warehouse;
  private static RunningService service;
  private static Table source;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.start();
    s3.createBucket("source");
    s3.createBucket("replica");
    warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);
    source = warehouse.createSample("ns", "orders");
    append("a", 3);
    append("b", 2);

    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "lake");
    properties.put("replicator.rules[0].source", "s3://source/warehouse");
    properties.put("replicator.rules[0].targets[0].name", "a");
    properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/warehouse");
    properties.put("replicator.rules[0].verify.interval", "PT1S");
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    properties.put("replicator.reconciliation-interval", "PT1S");
    service = RunningService.start(properties);
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () ->
                assertThat(service.http.get(STATUS).json().path("state").asText())
                    .isEqualTo("IN_SYNC"));
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
    warehouse.close();
    s3.close();
  }

  @Test
  @Order(1)
  void theRulesScheduleVerifiesTheReplicaAndTheStatusShowsIt() {
    Instant inSync = Instant.now();

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              JsonNode last = service.http.get(STATUS).json().path("lastVerify");
              assertThat(last.isObject()).as("lastVerify: %s", last).isTrue();
              assertThat(Instant.parse(last.path("verifiedAt").asText())).isAfter(inSync);
              assertThat(last.path("problems").asLong()).as("%s", last).isZero();
              assertThat(last.path("checked").asLong()).isPositive();
            });
  }

  @Test
  @Order(2)
  void aPostWithoutTheTokenIsRefused() {
    assertThat(service.http.withToken(null).post(STATUS + "/verify").status()).isEqualTo(401);
    assertThat(service.http.withToken("not-the-token-0123456").post(STATUS + "/verify").status())
        .isEqualTo(401);
  }

  @Test
  @Order(3)
  void aPostVerifiesACleanReplicaWithNoProblem() {
    HttpJson.Response response = service.http.post(STATUS + "/verify");

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    JsonNode report = response.json();
    assertThat(report.path("problems").asLong()).as(response.body()).isZero();
    assertThat(report.path("checked").asLong()).isGreaterThan(5);
    assertThat(report.path("firstProblems")).isEmpty();
    assertThat(service.http.post("/api/replications/a/ns/missing/verify").status()).isEqualTo(404);
  }

  @Test
  @Order(4)
  void aDataFileDeletedOnTheReplicaIsReportedByThePostTheStatusAndTheGauge() {
    String deleted = deleteOneReplicaDataFile();

    HttpJson.Response response = service.http.post(STATUS + "/verify");

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    JsonNode report = response.json();
    assertThat(report.path("problems").asLong()).as(response.body()).isEqualTo(1);
    assertThat(report.path("firstProblems")).hasSize(1);
    assertThat(report.path("firstProblems").get(0).asText())
        .startsWith("data file " + deleted + " (manifest ")
        .endsWith(": does not exist");
    JsonNode last = service.http.get(STATUS).json().path("lastVerify");
    assertThat(last.path("problems").asLong()).isEqualTo(1);
    assertThat(last.path("firstProblems").get(0).asText()).startsWith("data file " + deleted);
    assertThat(service.http.get("/actuator/prometheus").body())
        .contains("replicator_verify_problems{rule=\"lake\",table=\"ns/orders\",target=\"a\"} 1.0");
  }

  private static String deleteOneReplicaDataFile() {
    try (S3Client client = s3.client()) {
      S3Object data =
          client
              .listObjectsV2(b -> b.bucket("replica").prefix("warehouse/ns/orders/data/"))
              .contents()
              .stream()
              .filter(o -> o.key().endsWith(".parquet"))
              .findFirst()
              .orElseThrow();
      client.deleteObject(b -> b.bucket("replica").key(data.key()));
      return "s3://replica/" + data.key();
    }
  }

  private static void append(String category, int rows) {
    PartitionKey partition = new PartitionKey(source.spec(), source.schema());
    GenericRecord record = GenericRecord.create(source.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", (long) i, "category", category)));
    }
    source.newAppend().appendFile(TableWrites.writeData(source, partition, records)).commit();
  }
}
