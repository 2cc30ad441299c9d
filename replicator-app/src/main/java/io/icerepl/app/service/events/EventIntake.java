package io.icerepl.app.service.events;

import io.icerepl.app.engine.worker.CatalogTableLocations;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableDiscovery;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.merge.head.MetadataFileNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one event message into triggers of the tables it names, one per target. Only a location
 * that holds a table gets a lane: an event for any other (a table not written yet, a crafted key)
 * is ignored, so a flood of events cannot make the service hold, retry and report locations where
 * no table is. A refused message is counted in {@code replicator_events_refused_total} by reason.
 */
public record EventIntake(
    EventParser parser,
    TableRules rules,
    TableDiscovery discovery,
    ReplicationCoordinator coordinator,
    MeterRegistry meters,
    CatalogTableLocations catalogLocations) {
  private static final Logger LOG = LoggerFactory.getLogger(EventIntake.class);

  /**
   * @return the keys triggered
   * @throws IllegalArgumentException when the message cannot be parsed or is refused
   * @throws java.io.UncheckedIOException when a location cannot be listed (the message is received
   *     again)
   */
  public List<TableKey> accept(String message) {
    List<EventParser.CreatedFile> files;
    try {
      files = parser.createdFiles(message);
    } catch (RefusedEventException e) {
      Counter.builder("replicator.events.refused")
          .description("Event messages refused (too many records, an unprintable key)")
          .tag("reason", e.reason().tag())
          .register(meters)
          .increment();
      throw e;
    }
    List<TableKey> triggered = new ArrayList<>();
    for (String location :
        files.stream().map(EventParser.CreatedFile::tableLocation).distinct().toList()) {
      List<TableKey> keys = rules.keysOf(location);
      List<TableKey> catalogKeys = keys.isEmpty() ? catalogLocations.keysOf(location) : List.of();
      if (!catalogKeys.isEmpty()) {
        // a catalog table's head is its catalog's: the run asks it, whatever file the event names,
        // and asks again while the catalog does not name the version the event announces yet
        files.stream()
            .filter(file -> file.tableLocation().equals(location))
            .map(file -> MetadataFileNames.version(file.name()))
            .filter(OptionalLong::isPresent)
            .mapToLong(OptionalLong::getAsLong)
            .max()
            .ifPresent(version -> catalogLocations.announced(catalogKeys, version));
        triggered.addAll(catalogKeys);
        continue;
      }
      if (keys.isEmpty()) {
        LOG.debug("{}: no rule replicates this table; event ignored", location);
        continue;
      }
      keys = enclosing(keys);
      if (keys.stream().noneMatch(coordinator::hasLane)
          && !discovery.holdsTable(keys.get(0).sourceLocation())) {
        LOG.debug("{}: no table there; event ignored", location);
      } else {
        triggered.addAll(keys);
      }
    }
    triggered.forEach(
        key -> {
          LOG.debug("{}: event for target {}", key.table(), key.target());
          coordinator.trigger(key);
        });
    return triggered;
  }

  /**
   * A location nested in a table (metadata files under its data folder) is that table, not a new
   * one.
   */
  private List<TableKey> enclosing(List<TableKey> keys) {
    TableKey key = keys.get(0);
    TableRule rule = rules.rule(key.rule());
    String table;
    try {
      table = discovery.enclosingTable(rule, key.table());
    } catch (RuntimeException e) {
      // the source cannot be listed now: the run reports that error on the table the event names
      LOG.warn(
          "{}: cannot look for an enclosing table ({}); triggering it as named",
          key.table(),
          e.getMessage());
      return keys;
    }
    if (table.equals(key.table())) {
      return keys;
    }
    LOG.debug("{}: inside table {}; that table is triggered", key.table(), table);
    return rules.keys(rule, table);
  }
}
