package io.icerepl.app.service.events;

import io.icerepl.app.service.config.ReplicatorProperties.Rule;
import io.icerepl.app.service.worker.ReplicationCoordinator;
import io.icerepl.app.service.worker.TableDiscovery;
import io.icerepl.app.service.worker.TableKey;
import io.icerepl.app.service.worker.TableRules;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns one event message into triggers of the tables it names, one per target. */
public final class EventIntake {
  private static final Logger LOG = LoggerFactory.getLogger(EventIntake.class);

  private final EventParser parser;
  private final TableRules rules;
  private final TableDiscovery discovery;
  private final ReplicationCoordinator coordinator;

  public EventIntake(EventParser parser, TableRules rules, TableDiscovery discovery, ReplicationCoordinator coordinator) {
    this.parser = parser;
    this.rules = rules;
    this.discovery = discovery;
    this.coordinator = coordinator;
  }

  /**
   * @return the keys triggered
   * @throws IllegalArgumentException when the message cannot be parsed
   */
  public List<TableKey> accept(String message) {
    List<TableKey> triggered =
        parser.tableLocations(message).stream()
            .flatMap(
                location -> {
                  List<TableKey> keys = rules.keysOf(location);
                  if (keys.isEmpty()) {
                    LOG.debug("{}: no rule replicates this table; event ignored", location);
                    return keys.stream();
                  }
                  return enclosing(keys).stream();
                })
            .toList();
    triggered.forEach(
        key -> {
          LOG.debug("{}: event for target {}", key.table(), key.target());
          coordinator.trigger(key);
        });
    return triggered;
  }

  /** A location nested in a table (metadata files under its data folder) is that table, not a new one. */
  private List<TableKey> enclosing(List<TableKey> keys) {
    TableKey key = keys.get(0);
    Rule rule = rules.rule(key.rule());
    String table;
    try {
      table = discovery.enclosingTable(rule, key.table());
    } catch (RuntimeException e) {
      // the source cannot be listed now: the run reports that error on the table the event names
      LOG.warn("{}: cannot look for an enclosing table ({}); triggering it as named", key.table(), e.getMessage());
      return keys;
    }
    if (table.equals(key.table())) {
      return keys;
    }
    LOG.debug("{}: inside table {}; that table is triggered", key.table(), table);
    return rules.keys(rule, table);
  }
}
