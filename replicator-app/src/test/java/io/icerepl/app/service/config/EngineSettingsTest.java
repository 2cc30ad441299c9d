package io.icerepl.app.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.batch.BatchOperationsOptions;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The engine gets from the properties what the service configured, key by key. */
class EngineSettingsTest {

  @Test
  void aRuleMapsOntoTheEngineRuleWithItsTargetsPrefixesAndRetention() {
    ReplicatorProperties p =
        bind(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "s3://src/wh",
                "replicator.rules[0].allowed-source-prefixes[0]", "s3://shared/wh",
                "replicator.rules[0].targets[0].name", "eu",
                "replicator.rules[0].targets[0].prefix", "s3://eu/wh",
                "replicator.rules[0].targets[0].map[0].source", "s3://shared/wh",
                "replicator.rules[0].targets[0].map[0].target", "s3://eu-shared/wh",
                "replicator.rules[0].retention.enabled", "true",
                "replicator.rules[0].retention.retention-period", "90d",
                "replicator.rules[0].retention.retain-last", "3"));

    TableRule rule = EngineSettings.rules(p).get(0);

    assertThat(rule.name()).isEqualTo("lake");
    assertThat(rule.source()).isEqualTo("s3://src/wh");
    assertThat(rule.allowedSourcePrefixes()).containsExactly("s3://shared/wh");
    assertThat(rule.targets())
        .containsExactly(
            new RuleTarget(
                "eu",
                "s3://eu/wh",
                List.of(new PathMapping.Prefix("s3://shared/wh", "s3://eu-shared/wh"))));
    assertThat(rule.retentionInterval()).contains(Duration.ofHours(1));
    assertThat(rule.retention().expire().retentionPeriodMs()).contains(90L * 24 * 3600 * 1000);
    assertThat(rule.retention().expire().retainLast()).contains(3);
    assertThat(rule.retention().maxRefAgeMs()).isEmpty();
    assertThat(rule.retention().replicaOwnsFiles()).isFalse();
  }

  @Test
  void batchOperationsMapOntoTheEngineOptionsAndStayOffUnlessEnabled() {
    ReplicatorProperties on =
        bind(
            Map.of(
                "replicator.batch-operations.enabled", "true",
                "replicator.batch-operations.role-arn", "arn:aws:iam::111122223333:role/batch",
                "replicator.batch-operations.min-files", "5000",
                "replicator.batch-operations.min-bytes", "2GB",
                "replicator.batch-operations.poll-interval", "PT5S",
                "replicator.batch-operations.priority", "42"));

    assertThat(EngineSettings.batchOperations(on))
        .isEqualTo(
            new BatchOperationsOptions(
                Optional.of("arn:aws:iam::111122223333:role/batch"),
                Optional.empty(),
                5000,
                2L << 30,
                Duration.ofSeconds(5),
                42));
    assertThat(EngineSettings.batchOperations(on).account()).isEqualTo("111122223333");
    assertThat(
            EngineSettings.batchOperations(
                bind(
                    Map.of(
                        "replicator.batch-operations.role-arn",
                        "arn:aws:iam::111122223333:role/batch"))))
        .isEqualTo(BatchOperationsOptions.OFF);
  }

  @Test
  void retentionNotEnabledRunsOnlyOnDemandAndTheRunOptionsFollowTheTopLevelKeys() {
    ReplicatorProperties p =
        bind(
            Map.of(
                "replicator.rules[0].name", "lake",
                "replicator.rules[0].source", "s3://src/wh",
                "replicator.rules[0].targets[0].name", "eu",
                "replicator.rules[0].targets[0].prefix", "s3://eu/wh",
                "replicator.coalesce-versions", "true",
                "replicator.max-metadata-bytes", "1MB",
                "replicator.settle-time", "PT7S",
                "replicator.concurrency.files-per-table", "3"));

    assertThat(EngineSettings.rules(p).get(0).retentionInterval()).isEqualTo(Optional.empty());
    assertThat(EngineSettings.replication(p))
        .isEqualTo(new ReplicationOptions(List.of(), true, 1024 * 1024, 3, Duration.ofSeconds(7)));
  }

  @Test
  void replicasAreVerifiedDailyByDefaultOnTheirOwnIntervalOrOnlyOnDemandWhenDisabled() {
    Map<String, String> rule =
        Map.of(
            "replicator.rules[0].name", "lake",
            "replicator.rules[0].source", "s3://src/wh",
            "replicator.rules[0].targets[0].name", "eu",
            "replicator.rules[0].targets[0].prefix", "s3://eu/wh");
    Map<String, String> hourly = new java.util.HashMap<>(rule);
    hourly.put("replicator.rules[0].verify.interval", "PT1H");
    Map<String, String> disabled = new java.util.HashMap<>(rule);
    disabled.put("replicator.rules[0].verify.enabled", "false");

    assertThat(EngineSettings.rules(bind(rule)).get(0).verifyInterval())
        .contains(Duration.ofDays(1));
    assertThat(EngineSettings.rules(bind(hourly)).get(0).verifyInterval())
        .contains(Duration.ofHours(1));
    assertThat(EngineSettings.rules(bind(disabled)).get(0).verifyInterval()).isEmpty();
  }

  @Test
  void aCatalogRuleMapsItsCatalogNamespacesAndTargetCatalog() {
    ReplicatorProperties p =
        bind(
            Map.of(
                "replicator.rules[0].name", "sales",
                "replicator.rules[0].source-catalog", "name=prod,type=rest,uri=http://c:8181",
                "replicator.rules[0].namespaces[0]", "sales",
                "replicator.rules[0].targets[0].name", "eu",
                "replicator.rules[0].targets[0].prefix", "s3://eu/wh",
                "replicator.rules[0].targets[0].catalog", "name=dr,type=glue,warehouse=s3://eu/wh",
                "replicator.rules[0].targets[0].namespace", "sales_dr"));

    TableRule rule = EngineSettings.rules(p).get(0);

    assertThat(rule.catalog()).isPresent();
    assertThat(rule.catalog().get().spec().name()).isEqualTo("prod");
    assertThat(rule.catalog().get().spec().properties())
        .containsEntry("type", "rest")
        .containsEntry("uri", "http://c:8181");
    assertThat(rule.catalog().get().namespaces()).containsExactly("sales");
    assertThat(rule.source()).isEqualTo("catalog:prod");
    RuleTarget target = rule.targets().get(0);
    assertThat(target.catalog().map(CatalogSpec::name)).contains("dr");
    assertThat(target.namespace()).contains("sales_dr");
  }

  @Test
  void aRuleNeedsExactlyOneOfASourcePrefixAndASourceCatalog() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "replicator.rules[0].name", "both",
                        "replicator.rules[0].source", "s3://src/wh",
                        "replicator.rules[0].source-catalog", "type=rest,uri=http://c:8181",
                        "replicator.rules[0].targets[0].name", "eu",
                        "replicator.rules[0].targets[0].prefix", "s3://eu/wh")))
        .hasStackTraceContaining("needs exactly one of source");
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "replicator.rules[0].name", "neither",
                        "replicator.rules[0].targets[0].name", "eu",
                        "replicator.rules[0].targets[0].prefix", "s3://eu/wh")))
        .hasStackTraceContaining("needs exactly one of source");
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "replicator.rules[0].name", "unknown-kind",
                        "replicator.rules[0].source-catalog", "type=hive,uri=thrift://h:9083",
                        "replicator.rules[0].targets[0].name", "eu",
                        "replicator.rules[0].targets[0].prefix", "s3://eu/wh")))
        .hasStackTraceContaining("supported: rest, glue, jdbc");
  }

  private static ReplicatorProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("replicator", ReplicatorProperties.class);
  }
}
