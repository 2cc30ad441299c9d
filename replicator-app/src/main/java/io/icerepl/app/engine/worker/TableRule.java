package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.retention.RetentionOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every table under {@code source} is replicated to the same relative path under each target.
 *
 * @param name the rule's name, unique
 * @param source the source prefix URI; for a catalog rule, {@link RuleCatalog#label()}
 * @param targets where replicas go
 * @param allowedSourcePrefixes where else than in its own folder a table's metadata may keep files
 * @param retention the replicas' own retention, applied on demand and on schedule
 * @param retentionInterval how often retention runs on its own; empty: only on demand
 * @param catalog the catalog whose tables are the rule's, instead of the folders under {@code
 *     source}
 * @param verifyInterval how often its replicas are verified on their own; empty: only on demand
 */
public record TableRule(
    String name,
    String source,
    List<RuleTarget> targets,
    List<String> allowedSourcePrefixes,
    RetentionOptions retention,
    Optional<Duration> retentionInterval,
    Optional<RuleCatalog> catalog,
    Optional<Duration> verifyInterval) {

  public TableRule {
    targets = List.copyOf(targets);
    allowedSourcePrefixes = List.copyOf(allowedSourcePrefixes);
  }

  /** A rule over the folders under {@code source}. */
  public TableRule(
      String name,
      String source,
      List<RuleTarget> targets,
      List<String> allowedSourcePrefixes,
      RetentionOptions retention,
      Optional<Duration> retentionInterval) {
    this(
        name,
        source,
        targets,
        allowedSourcePrefixes,
        retention,
        retentionInterval,
        Optional.empty(),
        Optional.empty());
  }

  /** The target of that name. */
  public Optional<RuleTarget> target(String name) {
    return targets.stream().filter(t -> t.name().equals(name)).findFirst();
  }
}
