package io.icerepl.app.service.config;

import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.TableDiscovery;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.merge.path.TableLayout;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the service is asked to do, checked once as it starts: a configuration that would replicate
 * nothing, or a group that names a target or a table no rule replicates, is refused with the key
 * and what is wrong, rather than run as a service that says UP while doing none of it. Each value
 * on its own is checked where it is bound ({@link ReplicatorProperties}); here, what the values say
 * together and what the sources hold.
 */
public final class ConfigurationCheck {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigurationCheck.class);

  private ConfigurationCheck() {}

  /**
   * @param discovery where a group's table is looked for under its rules' sources; a source that
   *     cannot be read does not refuse the start (it is reported as the rule's failed discovery)
   * @throws InvalidConfigurationException naming the first key that is wrong
   */
  public static void check(
      ReplicatorProperties properties, TableRules rules, TableDiscovery discovery) {
    if (rules.rules().isEmpty()) {
      // every table the service replicates, verifies, promotes or fails back is one of a rule's
      throw new InvalidConfigurationException(
          "replicator.rules is empty, so no table would be replicated; give at least one rule"
              + " (replicator.rules[0].name, .source or .source-catalog, .targets[0].name and"
              + " .prefix)");
    }
    List<ReplicatorProperties.Group> groups = properties.groups();
    for (int g = 0; g < groups.size(); g++) {
      checkGroup("replicator.groups[" + g + "]", groups.get(g), rules, discovery);
    }
  }

  private static void checkGroup(
      String key, ReplicatorProperties.Group group, TableRules rules, TableDiscovery discovery) {
    List<TableRule> onTarget =
        rules.rules().stream().filter(r -> r.target(group.target()).isPresent()).toList();
    if (onTarget.isEmpty()) {
      TreeSet<String> targets = new TreeSet<>();
      rules.rules().forEach(r -> r.targets().stream().map(RuleTarget::name).forEach(targets::add));
      throw new InvalidConfigurationException(
          key
              + ".target: group "
              + group.name()
              + " names target "
              + group.target()
              + ", which no rule has (the rules' targets: "
              + String.join(", ", targets)
              + ")");
    }
    for (int t = 0; t < group.tables().size(); t++) {
      String table = group.tables().get(t);
      Optional<Boolean> held = heldByAny(onTarget, table, discovery);
      if (held.isPresent() && !held.get()) {
        throw new InvalidConfigurationException(
            key
                + ".tables["
                + t
                + "]: group "
                + group.name()
                + " names table "
                + table
                + ", which no rule replicating to target "
                + group.target()
                + " holds (no table at "
                + String.join(" or ", onTarget.stream().map(r -> where(r, table)).toList())
                + ")");
      }
    }
  }

  /** Whether one of the rules holds the table; empty when a rule that might could not be read. */
  private static Optional<Boolean> heldByAny(
      List<TableRule> rules, String table, TableDiscovery discovery) {
    boolean unreadable = false;
    for (TableRule rule : rules) {
      try {
        boolean held =
            rule.catalog().isPresent()
                ? discovery.tables(rule).contains(table)
                : discovery.holdsTable(TableLayout.join(rule.source(), table));
        if (held) {
          return Optional.of(true);
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "{}: cannot tell whether it holds the group table {} yet: {}",
            rule.name(),
            table,
            e.getMessage());
        unreadable = true;
      }
    }
    return unreadable ? Optional.empty() : Optional.of(false);
  }

  private static String where(TableRule rule, String table) {
    return rule.catalog().isPresent()
        ? table + " in " + rule.source()
        : TableLayout.join(rule.source(), table);
  }
}
