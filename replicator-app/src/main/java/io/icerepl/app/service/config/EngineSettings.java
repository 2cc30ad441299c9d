package io.icerepl.app.service.config;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.worker.RuleCatalog;
import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Maps the {@code replicator.*} properties onto the engine's settings: the engine knows no Spring.
 */
public final class EngineSettings {
  private EngineSettings() {}

  /**
   * How each table's run goes; files put in place at once per table is the per-table concurrency.
   */
  public static ReplicationOptions replication(ReplicatorProperties properties) {
    return new ReplicationOptions(
        List.of(),
        properties.coalesceVersions(),
        properties.maxMetadataBytes().toBytes(),
        properties.concurrency().filesPerTable(),
        properties.settleTime());
  }

  public static List<TableRule> rules(ReplicatorProperties properties) {
    return properties.rules().stream().map(EngineSettings::rule).toList();
  }

  static TableRule rule(ReplicatorProperties.Rule rule) {
    ReplicatorProperties.Retention retention = rule.retention();
    Optional<RuleCatalog> catalog =
        present(rule.sourceCatalog())
            .map(props -> new RuleCatalog(CatalogSpec.parse(props), rule.namespaces()));
    return new TableRule(
        rule.name(),
        catalog.map(RuleCatalog::label).orElse(rule.source()),
        rule.targets().stream().map(EngineSettings::target).toList(),
        rule.allowedSourcePrefixes(),
        RetentionOptions.policy(
            retention.retentionPeriodMs(),
            Optional.ofNullable(retention.retainLast()),
            retention.maxRefAgeMs(),
            retention.replicaOwnsFiles()),
        retention.enabled() ? Optional.of(retention.interval()) : Optional.<Duration>empty(),
        catalog);
  }

  private static RuleTarget target(ReplicatorProperties.Target target) {
    return new RuleTarget(
        target.name(),
        target.prefix(),
        target.map().stream().map(m -> new PathMapping.Prefix(m.source(), m.target())).toList(),
        present(target.catalog()).map(CatalogSpec::parse),
        present(target.namespace()));
  }

  private static Optional<String> present(String value) {
    return Optional.ofNullable(value).filter(v -> !v.isBlank());
  }
}
