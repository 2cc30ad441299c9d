package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventMessages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Every metric the Grafana dashboard and the Prometheus alerting rules of {@code infra/monitoring}
 * name is one the running service exports on {@code /actuator/prometheus}. Tagged meters appear
 * only once something made them, so the service first replicates a table, refuses a lane (one lane
 * per rule, two tables), refuses an event (a key with a control character), verifies the replica
 * and reads a dead-letter queue. Exported names are the sample names, {@code _bucket}, {@code
 * _count} and {@code _sum} included.
 */
class MonitoringServiceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final Path MONITORING = Path.of("..", "infra", "monitoring");
  private static final Path DASHBOARD = MONITORING.resolve("replicator-dashboard.json");
  private static final Path ALERTS = MONITORING.resolve("replicator-alerts.yml");
  private static final Path BROKEN_DASHBOARD =
      Path.of("src", "test", "resources", "monitoring", "dashboard-naming-an-unknown-metric.json");
  private static final String QUEUE = "replicator-events";

  private static EmbeddedSqs sqs;
  private static RunningService service;

  @TempDir static Path root;

  @BeforeAll
  static void start() throws IOException {
    for (String name : List.of("t1", "t2")) {
      SourceTable.create(root.resolve("warehouse/ns/" + name), 2).append("a", 2);
    }
    sqs = EmbeddedSqs.start();
    sqs.createQueueWithDeadLetterQueue(QUEUE, 2, 1);
    service =
        RunningService.start(
            Map.ofEntries(
                Map.entry("replicator.rules[0].name", "lake"),
                Map.entry("replicator.rules[0].source", "file:" + root.resolve("warehouse")),
                Map.entry("replicator.rules[0].targets[0].name", "a"),
                Map.entry(
                    "replicator.rules[0].targets[0].prefix", "file:" + root.resolve("replica")),
                Map.entry("replicator.reconciliation-interval", "300ms"),
                Map.entry("replicator.rules[0].verify.interval", "300ms"),
                Map.entry("replicator.limits.lanes-per-rule", "1"),
                // a group, for its gauges the dashboard and the alerts name
                Map.entry("replicator.groups[0].name", "both"),
                Map.entry("replicator.groups[0].target", "a"),
                Map.entry("replicator.groups[0].tables[0]", "ns/t1"),
                Map.entry("replicator.groups[0].tables[1]", "ns/t2"),
                Map.entry("replicator.sqs.enabled", "true"),
                Map.entry("replicator.sqs.queue", QUEUE),
                Map.entry("replicator.sqs.dead-letter-queue", QUEUE + "-dlq"),
                Map.entry("replicator.sqs.dead-letter-poll-interval", "200ms"),
                Map.entry("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString()),
                Map.entry("spring.cloud.aws.sqs.listener.poll-timeout", "1s"),
                Map.entry("spring.cloud.aws.region.static", "us-east-1"),
                Map.entry("spring.cloud.aws.credentials.access-key", "local"),
                Map.entry("spring.cloud.aws.credentials.secret-key", "local-secret")));
    try (SqsClient client = sqs.client()) {
      String queueUrl = client.getQueueUrl(r -> r.queueName(QUEUE)).queueUrl();
      String refused =
          S3EventMessages.objectCreated(
              "source-bucket", "warehouse/ns/t\u0001/metadata/v1.metadata.json", 1);
      client.sendMessage(r -> r.queueUrl(queueUrl).messageBody(refused));
    }
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
    if (sqs != null) {
      sqs.close();
    }
  }

  @Test
  void everyMetricTheDashboardNamesIsExported() {
    Set<String> named = metricNames(dashboardQueries(DASHBOARD));

    assertThat(named).isNotEmpty();
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(notExported(named)).isEmpty());
  }

  @Test
  void everyMetricTheAlertingRulesNameIsExported() {
    Set<String> named = metricNames(ruleExpressions(ALERTS));

    assertThat(named).isNotEmpty();
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(notExported(named)).isEmpty());
  }

  @Test
  void aDashboardNamingAMetricTheServiceDoesNotExportIsReported() {
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> assertThat(notExported(metricNames(dashboardQueries(DASHBOARD)))).isEmpty());

    assertThat(notExported(metricNames(dashboardQueries(BROKEN_DASHBOARD))))
        .containsExactly("replicator_commit_total");
  }

  @Test
  void onlyMetricNamesAreReadFromAnExpression() {
    assertThat(
            PromQlMetricNames.of(
                "sum by (target, table) (rate(replicator_failures_total{target=~\"$target\", table=~\"${table}\"}[$__rate_interval])) > 0"))
        .containsExactly("replicator_failures_total");
    assertThat(
            PromQlMetricNames.of(
                "replicator_failed_tables - on(instance) group_left(job) replicator_diverged_tables > bool 0"))
        .containsExactly("replicator_diverged_tables", "replicator_failed_tables");
    assertThat(
            PromQlMetricNames.of(
                "histogram_quantile(0.99, sum(rate(http_server_requests_seconds_bucket[5m] offset 1h)) by (le))"))
        .containsExactly("http_server_requests_seconds_bucket");
    assertThat(
            PromQlMetricNames.of(
                "label_values(replicator_lag_seconds{target=~\"$target\"}, table)"))
        .containsExactly("replicator_lag_seconds");
    assertThat(PromQlMetricNames.of("label_values(target)")).isEmpty();
  }

  /** Of {@code names}, those the service does not export now. */
  private static Set<String> notExported(Set<String> names) {
    Set<String> exported = new TreeSet<>();
    for (String line : service.http.get("/actuator/prometheus").body().split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        exported.add(line.split("[{ ]", 2)[0]);
      }
    }
    Set<String> missing = new TreeSet<>(names);
    missing.removeAll(exported);
    return missing;
  }

  private static Set<String> metricNames(List<String> expressions) {
    Set<String> names = new TreeSet<>();
    expressions.forEach(e -> names.addAll(PromQlMetricNames.of(e)));
    return names;
  }

  /** Every panel's {@code expr}, rows' panels included, and every query variable's query. */
  private static List<String> dashboardQueries(Path dashboard) {
    JsonNode root = read(new ObjectMapper(), dashboard);
    List<String> queries = new ArrayList<>();
    root.findValues("expr").forEach(e -> queries.add(e.asText()));
    for (JsonNode variable : root.path("templating").path("list")) {
      if (variable.path("type").asText().equals("query")) {
        JsonNode query = variable.path("query");
        queries.add(query.isObject() ? query.path("query").asText() : query.asText());
      }
    }
    return queries;
  }

  private static List<String> ruleExpressions(Path rules) {
    List<String> expressions = new ArrayList<>();
    for (JsonNode group : read(new YAMLMapper(), rules).path("groups")) {
      group.path("rules").forEach(rule -> expressions.add(rule.path("expr").asText()));
    }
    return expressions;
  }

  private static JsonNode read(ObjectMapper mapper, Path file) {
    try {
      return mapper.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }
}
