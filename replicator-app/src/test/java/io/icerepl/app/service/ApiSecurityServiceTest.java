package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.icerepl.app.engine.SourceTable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API's authentication, over real HTTP against the started service on local files: rule
 * {@code lake} (retention enabled) holds the tables {@code a.b/t} and {@code a/b/t}; rule {@code
 * frozen} (retention disabled) holds {@code ns/t}.
 */
class ApiSecurityServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /** Removed by JUnit once the class is done, with everything the service wrote. */
  @TempDir static Path tempDir;

  private static Path root;
  private static final String DOTTED = "/api/replications/a/a.b/t";
  private static final String NESTED = "/api/replications/a/a%1Fb/t";
  private static final String FROZEN = "/api/replications/f/ns/t";
  private static final String OLD = "/api/replications/a/ns/old";

  private static RunningService service;

  @BeforeAll
  static void start() throws IOException {
    root = tempDir.toRealPath();
    SourceTable.create(root.resolve("lake/a.b/t"), 2).append("a", 2);
    SourceTable.create(root.resolve("lake/a/b/t"), 2).append("b", 3);
    SourceTable.create(root.resolve("frozen/ns/t"), 2).append("c", 1);
    // four snapshots, a policy that keeps one: an expire that runs has something to expire
    SourceTable old = SourceTable.create(root.resolve("lake/ns/old"), 2);
    old.table
        .updateProperties()
        .set("history.expire.max-snapshot-age-ms", "1")
        .set("history.expire.min-snapshots-to-keep", "1")
        .commit();
    for (String category : List.of("a", "b", "c", "d")) {
      old.append(category, 1);
    }
    service = RunningService.start(properties(Map.of()));
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              for (String path : List.of(DOTTED, NESTED, FROZEN, OLD)) {
                assertThat(service.http.get(path).json().path("state").asText())
                    .as(path)
                    .isEqualTo("IN_SYNC");
              }
            });
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  @Test
  void expireWithoutATokenIsUnauthorized() {
    HttpJson.Response response = service.http.withToken(null).post(DOTTED + "/expire");

    assertThat(response.status()).isEqualTo(401);
    assertThat(response.json().path("error").asText())
        .isEqualTo(
            "Cannot authorize POST "
                + DOTTED
                + "/expire: send the API token as 'Authorization: Bearer <token>'");
  }

  @Test
  void expireWithAWrongTokenIsUnauthorized() {
    HttpJson.Response response =
        service.http.withToken("test-token-0123456780").post(DOTTED + "/expire");

    assertThat(response.status()).isEqualTo(401);
    assertThat(response.json().path("error").asText())
        .isEqualTo("Cannot authenticate the request: invalid bearer token");
  }

  @Test
  void expireWithTheTokenRunsTheRetention() {
    HttpJson.Response response = service.http.post(DOTTED + "/expire");

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    assertThat(response.json().path("expiredSnapshotsCount").asInt()).isZero();
    assertThat(response.json().path("dryRun").asBoolean()).isFalse();
  }

  @Test
  void anExpireRefusedExpiresNothingAndOneWithTheTokenExpiresWhatThePolicySays() {
    assertThat(replicaSnapshots()).isEqualTo(4);

    assertThat(service.http.withToken(null).post(OLD + "/expire").status()).isEqualTo(401);
    assertThat(service.http.withToken("test-token-0123456780").post(OLD + "/expire").status())
        .isEqualTo(401);
    assertThat(service.http.crossSiteFormPost(OLD + "/expire", "https://intranet.example").status())
        .isEqualTo(401);
    assertThat(replicaSnapshots()).as("after the refused requests").isEqualTo(4);

    HttpJson.Response response = service.http.post(OLD + "/expire");

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    assertThat(response.json().path("expiredSnapshotsCount").asInt()).isEqualTo(3);
    assertThat(replicaSnapshots()).as("after the expire").isEqualTo(1);
  }

  /** The snapshots the replica of {@code ns/old} holds, read by the Iceberg library. */
  private static int replicaSnapshots() {
    org.apache.iceberg.Table replica =
        SourceTable.TABLES.load(root.resolve("replica-lake/ns/old").toString());
    int n = 0;
    for (org.apache.iceberg.Snapshot ignored : replica.snapshots()) {
      n++;
    }
    return n;
  }

  @Test
  void aCrossSiteFormPostCannotExpire() {
    HttpJson.Response response =
        service.http.crossSiteFormPost(DOTTED + "/expire", "https://intranet.example");

    assertThat(response.status()).isEqualTo(401);
  }

  @Test
  void expireIsRefusedWhenTheRulesRetentionIsDisabled() {
    HttpJson.Response response = service.http.post(FROZEN + "/expire");

    assertThat(response.status()).isEqualTo(409);
    assertThat(response.json().path("error").asText())
        .isEqualTo(
            "Cannot expire snapshots of ns/t on f: retention is disabled for rule frozen "
                + "(replicator.rules[].retention.enabled)");
  }

  @Test
  void statusAndPrometheusNeedTheToken() {
    HttpJson anonymous = service.http.withToken(null);
    for (String path : List.of("/api/replications", DOTTED, "/actuator/prometheus")) {
      assertThat(anonymous.get(path).status()).as(path).isEqualTo(401);
      assertThat(service.http.get(path).status()).as(path).isEqualTo(200);
    }
  }

  @Test
  void healthAnswersWithoutTheTokenAndShowsDetailsOnlyWithIt() {
    HttpJson.Response anonymous = service.http.withToken(null).get("/actuator/health");
    assertThat(anonymous.status()).isEqualTo(200);
    assertThat(anonymous.json().path("status").asText()).isEqualTo("UP");
    assertThat(anonymous.json().has("components")).as(anonymous.body()).isFalse();

    HttpJson.Response authenticated = service.http.get("/actuator/health");
    assertThat(authenticated.json().has("components")).as(authenticated.body()).isTrue();
  }

  @Test
  void namespacesWithADotAndWithTwoLevelsAreDistinctEntries() {
    assertThat(service.http.get(DOTTED).json().path("table").asText()).isEqualTo("a.b/t");
    assertThat(service.http.get(NESTED).json().path("table").asText()).isEqualTo("a/b/t");
    assertThat(service.http.get("/api/replications").json())
        .extracting(s -> s.path("table").asText())
        .contains("a.b/t", "a/b/t");
  }

  @Test
  void publicStatusOpensTheReadsButNotTheMutations() {
    try (RunningService open =
        RunningService.start(properties(Map.of("replicator.api.public-status", "true")))) {
      HttpJson anonymous = open.http.withToken(null);
      assertThat(anonymous.get("/api/replications").status()).isEqualTo(200);
      assertThat(anonymous.get("/actuator/prometheus").status()).isEqualTo(200);
      assertThat(anonymous.post(DOTTED + "/expire").status()).isEqualTo(401);
    }
  }

  @Test
  void theTokenCanComeFromASecretsManagerSecret() throws IOException {
    String secret = "secret-token-9876543210";
    List<String> targets = new CopyOnWriteArrayList<>();
    HttpServer secretsManager = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // Secrets Manager's JSON protocol: one POST per call, the operation in X-Amz-Target
    secretsManager.createContext(
        "/",
        exchange -> {
          targets.add(
              exchange.getRequestHeaders().getFirst("X-Amz-Target")
                  + " "
                  + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          byte[] body =
              ("{\"ARN\":\"arn:aws:secretsmanager:us-east-1:123456789012:secret:replicator-api-AbCdEf\","
                      + "\"Name\":\"replicator-api\",\"SecretString\":\""
                      + secret
                      + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    secretsManager.start();
    Map<String, String> extra =
        Map.of(
            "replicator.api.token-secret-id", "replicator-api",
            "replicator.api.token-secret-region", "us-east-1",
            "replicator.api.token-secret-endpoint",
                "http://127.0.0.1:" + secretsManager.getAddress().getPort());
    System.setProperty("aws.accessKeyId", "test");
    System.setProperty("aws.secretAccessKey", "test");
    try (RunningService fromSecret = RunningService.start(properties(extra))) {
      assertThat(targets)
          .singleElement()
          .asString()
          .startsWith("secretsmanager.GetSecretValue ")
          .contains("\"SecretId\":\"replicator-api\"");
      assertThat(fromSecret.http.withToken(secret).get("/api/replications").status())
          .isEqualTo(200);
      assertThat(fromSecret.http.get("/api/replications").status())
          .as("the configuration's token")
          .isEqualTo(401);
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
      secretsManager.stop(0);
    }
  }

  private static Map<String, String> properties(Map<String, String> extra) {
    Map<String, String> properties =
        new HashMap<>(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "file:" + root.resolve("lake"),
                "replicator.rules[0].targets[0].name", "a",
                "replicator.rules[0].targets[0].prefix", "file:" + root.resolve("replica-lake"),
                "replicator.rules[0].retention.enabled", "true",
                "replicator.rules[1].name", "frozen",
                "replicator.rules[1].source", "file:" + root.resolve("frozen"),
                "replicator.rules[1].targets[0].name", "f",
                "replicator.rules[1].targets[0].prefix", "file:" + root.resolve("replica-frozen"),
                "replicator.reconciliation-interval", "300ms"));
    properties.putAll(extra);
    return properties;
  }
}
