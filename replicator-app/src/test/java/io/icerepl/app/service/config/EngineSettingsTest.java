package io.icerepl.app.service.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.ReplicationOptions;
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

  private static ReplicatorProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("replicator", ReplicatorProperties.class);
  }
}
