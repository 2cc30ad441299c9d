package io.icerepl.app.service.worker;

import io.icerepl.app.service.config.ReplicatorProperties.Rule;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic pass that makes events optional: triggers every table of every rule for every
 * target. The engine does nothing for a replica in sync, so lost events are caught up and
 * duplicated or reordered ones are harmless.
 */
public final class Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

  private final TableRules rules;
  private final TableDiscovery discovery;
  private final ReplicationCoordinator coordinator;

  public Reconciler(TableRules rules, TableDiscovery discovery, ReplicationCoordinator coordinator) {
    this.rules = rules;
    this.discovery = discovery;
    this.coordinator = coordinator;
  }

  /** Triggers every table of every rule; a rule whose source cannot be listed does not stop the others. */
  public void reconcile() {
    for (Rule rule : rules.rules()) {
      keys(rule).forEach(coordinator::trigger);
    }
  }

  /** Expires the replicas of every table of {@code rule}, each in its lane. */
  public void expire(Rule rule) {
    for (TableKey key : keys(rule)) {
      coordinator
          .expireNow(key)
          .whenComplete(
              (result, error) -> {
                if (error != null) {
                  LOG.warn("{}: retention of replica {} failed", key.table(), key.targetLocation(), error);
                } else {
                  LOG.info("{}: retention of replica {}: {}", key.table(), key.targetLocation(), result.metrics());
                }
              });
    }
  }

  private List<TableKey> keys(Rule rule) {
    List<TableKey> keys = new ArrayList<>();
    try {
      for (String table : discovery.tables(rule)) {
        keys.addAll(rules.keys(rule, table));
      }
    } catch (RuntimeException e) {
      LOG.warn("{}: cannot discover tables under {}", rule.name(), rule.source(), e);
    }
    return keys;
  }
}
