package io.icerepl.app.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class ReplicatorPropertiesTest {

  @Test
  void everyKeyHasItsDocumentedDefault() {
    ReplicatorProperties p = bind(Map.of());
    assertThat(p.rules()).isEmpty();
    assertThat(p.concurrency().tables()).isEqualTo(16);
    assertThat(p.concurrency().filesPerTable()).isEqualTo(8);
    assertThat(p.reconciliationInterval()).isEqualTo(Duration.ofMinutes(1));
    // without events reconciliation is how changes are found: every table at every pass
    assertThat(p.reconciliationIdleInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(p.retry().initialBackoff()).isEqualTo(Duration.ofSeconds(5));
    assertThat(p.retry().maxBackoff()).isEqualTo(Duration.ofMinutes(10));
    assertThat(p.sqs().enabled()).isFalse();
    assertThat(p.sqs().queue()).isEqualTo("iceberg-replicator-events");
    assertThat(p.coalesceVersions()).isFalse();
    assertThat(p.maxMetadataBytes().toBytes()).isEqualTo(256L * 1024 * 1024);
    assertThat(p.limits().recordsPerMessage()).isEqualTo(100);
    assertThat(p.limits().lanesPerRule()).isEqualTo(10000);
  }

  /** A group's table is judged by the smallest clock-skew its groups' cuts rely on. */
  @Test
  void aWritersClockIsAllowedTheGroupsClockSkewElseTheWriterClockAllowance() {
    assertThat(bind(Map.of()).writerClockAllowanceOf("a", "ns/t")).isEqualTo(Duration.ofSeconds(1));
    ReplicatorProperties p =
        bind(
            Map.of(
                "replicator.writer-clock-allowance", "PT2S",
                "replicator.groups[0].name", "wide",
                "replicator.groups[0].target", "a",
                "replicator.groups[0].tables[0]", "ns/t",
                "replicator.groups[0].clock-skew", "PT10S",
                "replicator.groups[1].name", "narrow",
                "replicator.groups[1].target", "a",
                "replicator.groups[1].tables[0]", "ns/t",
                "replicator.groups[1].clock-skew", "PT0.5S"));
    assertThat(p.writerClockAllowanceOf("a", "ns/t")).isEqualTo(Duration.ofMillis(500));
    assertThat(p.writerClockAllowanceOf("b", "ns/t")).isEqualTo(Duration.ofSeconds(2));
    assertThat(p.writerClockAllowanceOf("a", "ns/other")).isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> bind(Map.of("replicator.writer-clock-allowance", "-PT1S")))
        .hasStackTraceContaining("writer-clock-allowance cannot be negative");
  }

  @Test
  void withAnEventIntakeAnIdleTableIsListedEveryFifteenPassesByDefaultOrAsConfigured() {
    assertThat(bind(Map.of("replicator.sqs.enabled", "true")).reconciliationIdleInterval())
        .isEqualTo(Duration.ofMinutes(15));
    assertThat(
            bind(Map.of(
                    "replicator.sqs.enabled", "true",
                    "replicator.reconciliation-interval", "PT2S"))
                .reconciliationIdleInterval())
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(
            bind(Map.of("replicator.reconciliation-idle-interval", "PT1H"))
                .reconciliationIdleInterval())
        .isEqualTo(Duration.ofHours(1));
    assertThatThrownBy(() -> bind(Map.of("replicator.reconciliation-idle-interval", "-PT1M")))
        .hasStackTraceContaining("reconciliation-idle-interval cannot be negative");
  }

  @Test
  void aRuleGetsRetentionDefaultsAndParsesItsDurations() {
    ReplicatorProperties p =
        bind(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "s3://src/wh",
                "replicator.rules[0].targets[0].name", "eu",
                "replicator.rules[0].targets[0].prefix", "s3://eu/wh",
                "replicator.rules[0].retention.retention-period", "90d",
                "replicator.rules[0].retention.max-ref-age", "1d12h"));
    ReplicatorProperties.Retention retention = p.rules().get(0).retention();
    assertThat(retention.enabled()).isFalse();
    assertThat(retention.interval()).isEqualTo(Duration.ofHours(1));
    assertThat(retention.retentionPeriodMs()).contains(90L * 24 * 3600 * 1000);
    assertThat(retention.maxRefAgeMs()).contains(36L * 3600 * 1000);
    assertThat(retention.retainLast()).isNull();
    assertThat(retention.replicaOwnsFiles()).isFalse();
  }

  @Test
  void aRuleBindsItsAllowedSourcePrefixesAndATargetItsMappings() {
    ReplicatorProperties p =
        bind(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "s3://src/wh",
                "replicator.rules[0].allowed-source-prefixes[0]", "s3://shared/wh",
                "replicator.rules[0].targets[0].name", "eu",
                "replicator.rules[0].targets[0].prefix", "s3://eu/wh",
                "replicator.rules[0].targets[0].map[0].source", "s3://shared/wh",
                "replicator.rules[0].targets[0].map[0].target", "s3://eu-shared/wh"));
    assertThat(p.rules().get(0).allowedSourcePrefixes()).containsExactly("s3://shared/wh");
    assertThat(p.rules().get(0).targets().get(0).map())
        .containsExactly(new ReplicatorProperties.PrefixMap("s3://shared/wh", "s3://eu-shared/wh"));

    ReplicatorProperties plain =
        bind(
            Map.of(
                "replicator.rules[0].name", "plain",
                "replicator.rules[0].source", "s3://src/other",
                "replicator.rules[0].targets[0].name", "eu",
                "replicator.rules[0].targets[0].prefix", "s3://eu/other"));
    assertThat(plain.rules().get(0).allowedSourcePrefixes()).isEmpty();
    assertThat(plain.rules().get(0).targets().get(0).map()).isEmpty();
  }

  @Test
  void aMalformedRetentionPeriodIsRefused() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "replicator.rules[0].name", "lake",
                        "replicator.rules[0].source", "s3://src/wh",
                        "replicator.rules[0].targets[0].name", "eu",
                        "replicator.rules[0].targets[0].prefix", "s3://eu/wh",
                        "replicator.rules[0].retention.retention-period", "ninety days")))
        .rootCause()
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageStartingWith("Cannot parse duration 'ninety days'");
  }

  @Test
  void aMaximumBackoffBelowTheInitialOneIsRefused() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "replicator.retry.initial-backoff",
                        "1m",
                        "replicator.retry.max-backoff",
                        "10s")))
        .rootCause()
        .hasMessage(
            "replicator.retry needs 0 < initial-backoff <= max-backoff, got PT1M and PT10S");
  }

  private static ReplicatorProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("replicator", ReplicatorProperties.class);
  }
}
