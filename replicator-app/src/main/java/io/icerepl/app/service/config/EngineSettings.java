package io.icerepl.app.service.config;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.batch.BatchOperationsOptions;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.worker.RuleCatalog;
import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.app.logging.Redaction;
import io.icerepl.app.service.s3.S3Properties;
import io.icerepl.merge.model.MetadataHeapBound;
import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps the {@code replicator.*} properties onto the engine's settings: the engine knows no Spring.
 */
public final class EngineSettings {
  private static final Logger LOG = LoggerFactory.getLogger(EngineSettings.class);

  private EngineSettings() {}

  /**
   * How each table's run goes; files put in place at once per table is the per-table concurrency.
   */
  /** The S3 Batch Operations pre-copy settings; off unless enabled. */
  public static BatchOperationsOptions batchOperations(ReplicatorProperties properties) {
    ReplicatorProperties.BatchOperations batch = properties.batchOperations();
    if (!batch.enabled()) {
      return BatchOperationsOptions.OFF;
    }
    return new BatchOperationsOptions(
        Optional.of(batch.roleArn()),
        Optional.ofNullable(batch.accountId()).filter(a -> !a.isBlank()),
        batch.minFiles(),
        batch.minBytes().toBytes(),
        batch.pollInterval(),
        batch.priority());
  }

  public static ReplicationOptions replication(ReplicatorProperties properties) {
    long limit = properties.maxMetadataBytes().toBytes();
    MetadataHeapBound heap = MetadataHeapBound.ofThisJvm();
    if (heap.largestFileBytes() < limit) {
      // said once at start: the refusal itself names the file and the heap when it happens
      LOG.warn(
          "replicator.max-metadata-bytes is {} MiB, but this process's maximum heap of {} MiB holds"
              + " metadata files up to {} MiB: larger ones are refused; -Xmx{}m reads files up to"
              + " the configured limit",
          limit >> 20,
          heap.maxHeapBytes() >> 20,
          heap.largestFileBytes() >> 20,
          MetadataHeapBound.heapMibFor(limit));
    }
    return new ReplicationOptions(
        List.of(),
        properties.coalesceVersions(),
        properties.maxMetadataBytes().toBytes(),
        properties.concurrency().filesPerTable(),
        properties.settleTime());
  }

  public static List<TableRule> rules(ReplicatorProperties properties) {
    return rules(properties, Map.of(), Map.of());
  }

  /**
   * @param sourceCatalogDefaults Iceberg properties a source catalog gets where its own set none:
   *     the service's source-side S3 settings, so a catalog over the same S3 needs them only once
   * @param targetCatalogDefaults the same for target catalogs
   */
  public static List<TableRule> rules(
      ReplicatorProperties properties,
      Map<String, String> sourceCatalogDefaults,
      Map<String, String> targetCatalogDefaults) {
    return properties.rules().stream()
        .map(rule -> rule(rule, sourceCatalogDefaults, targetCatalogDefaults))
        .toList();
  }

  /**
   * The rules, the one mapping of the service and of {@code backfill}: catalogs get the S3 settings
   * of their side where their properties set none.
   */
  public static TableRules tableRules(ReplicatorProperties properties, Optional<S3Properties> s3) {
    if (s3.isEmpty()) {
      return new TableRules(rules(properties));
    }
    return new TableRules(
        rules(properties, catalogDefaults(s3.get().source()), catalogDefaults(s3.get().target())));
  }

  private static Map<String, String> catalogDefaults(S3Properties.Side side) {
    return catalogDefaults(
        side.region(),
        Optional.ofNullable(side.endpoint()).map(Object::toString),
        side.pathStyle(),
        Optional.ofNullable(side.accessKeyId()),
        Optional.ofNullable(side.secretAccessKey()));
  }

  /**
   * One side's S3 settings as the Iceberg properties of the AWS clients a catalog builds (its
   * S3FileIO, Glue's client).
   */
  public static Map<String, String> catalogDefaults(
      String region,
      Optional<String> endpoint,
      boolean pathStyle,
      Optional<String> accessKeyId,
      Optional<String> secretAccessKey) {
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put("client.region", region);
    endpoint.ifPresent(e -> defaults.put("s3.endpoint", e));
    if (pathStyle) {
      defaults.put("s3.path-style-access", "true");
    }
    if (accessKeyId.isPresent() && secretAccessKey.isPresent()) {
      Redaction.secret(secretAccessKey.get());
      defaults.put("s3.access-key-id", accessKeyId.get());
      defaults.put("s3.secret-access-key", secretAccessKey.get());
    }
    return defaults;
  }

  static TableRule rule(
      ReplicatorProperties.Rule rule,
      Map<String, String> sourceCatalogDefaults,
      Map<String, String> targetCatalogDefaults) {
    ReplicatorProperties.Retention retention = rule.retention();
    Optional<RuleCatalog> catalog =
        present(rule.sourceCatalog())
            .map(
                props ->
                    new RuleCatalog(
                        CatalogSpec.parse(props).withDefaults(sourceCatalogDefaults),
                        rule.namespaces()));
    return new TableRule(
        rule.name(),
        catalog.map(RuleCatalog::label).orElse(rule.source()),
        rule.targets().stream().map(t -> target(t, targetCatalogDefaults)).toList(),
        rule.allowedSourcePrefixes(),
        RetentionOptions.policy(
            retention.retentionPeriodMs(),
            Optional.ofNullable(retention.retainLast()),
            retention.maxRefAgeMs(),
            retention.replicaOwnsFiles()),
        retention.enabled() ? Optional.of(retention.interval()) : Optional.<Duration>empty(),
        catalog,
        rule.verify().enabled()
            ? Optional.of(rule.verify().interval())
            : Optional.<Duration>empty());
  }

  private static RuleTarget target(
      ReplicatorProperties.Target target, Map<String, String> catalogDefaults) {
    return new RuleTarget(
        target.name(),
        target.prefix(),
        target.map().stream().map(m -> new PathMapping.Prefix(m.source(), m.target())).toList(),
        present(target.catalog()).map(c -> CatalogSpec.parse(c).withDefaults(catalogDefaults)),
        present(target.namespace()));
  }

  private static Optional<String> present(String value) {
    return Optional.ofNullable(value).filter(v -> !v.isBlank());
  }
}
