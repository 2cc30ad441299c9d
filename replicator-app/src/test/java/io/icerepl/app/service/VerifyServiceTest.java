package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The service's verification on the embedded S3: a table committed by the Iceberg library
 * (S3FileIO) is replicated, verified on the rule's schedule and on demand through the API (only
 * with the token), and a data file deleted on the replica shows in the answer, the table's status
 * and {@code replicator_verify_problems}. The steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class VerifyServiceTest {
  private static final Duration PATIENCE = ServiceOnS3.PATIENCE;
  private static final String STATUS = "/api/replications/a/ns/orders";

  private static ServiceOnS3 fixture;
  private static RunningService service;
  private static Table source;

  @BeforeAll
  static void start() {
    fixture = new ServiceOnS3();
    source = fixture.warehouse.createSample("ns", "orders");
    ServiceOnS3.append(source, "a", 3);
    ServiceOnS3.append(source, "b", 2);
    service = fixture.start(Map.of("replicator.rules[0].verify.interval", "PT1S"));
    fixture.awaitState(STATUS, "IN_SYNC");
  }

  @AfterAll
  static void stop() {
    fixture.close();
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
    String deleted = fixture.deleteOneReplicaDataFile("ns/orders");

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
}
