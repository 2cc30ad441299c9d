package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.head.MetadataListing;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic pass that makes events optional: triggers every table of every rule for every
 * target, but for a table whose metadata folder lists as it did when its last run left the replica
 * holding its head. The engine does nothing for a replica in sync, so lost events are caught up and
 * duplicated or reordered ones are harmless; and a pass over unchanged tables costs one listing
 * each, no read.
 */
public final class Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

  /** What the service knows of where each replica stands (its lanes' runner). */
  public interface Replicas {
    /** Reads where a replica not known yet stands, before it is first triggered. */
    void restore(TableKey key);

    /**
     * Whether the key's replica held the head its source resolved from a metadata folder listed
     * alike, with nothing settling, at the key's last run (or restore).
     */
    boolean unchangedSince(TableKey key, MetadataListing listing);
  }

  private final TableRules rules;
  private final TableDiscovery discovery;
  private final ReplicationCoordinator coordinator;
  private final TableStatus board;
  private final Replicas replicas;
  private final Clock clock;
  private final ReconcileSchedule schedule;
  private final Predicate<TableKey> everyPass;
  private final TableChecks checks;

  /** Keys whose scheduled verification is queued or running, so a slow one is not queued twice. */
  private final Set<TableKey> verifying = ConcurrentHashMap.newKeySet();

  /** The keys each catalog rule's last listing found, to tell a table the catalog dropped. */
  private final Map<String, Set<TableKey>> listed = new ConcurrentHashMap<>();

  /**
   * @param board told whether each rule's source could be listed
   * @param replicas what the service knows of where each replica stands
   * @param clock when each rule's source is listed: an unchanged table is known current from then
   * @param schedule when each table is next checked: an idle one is not listed at every pass
   * @param everyPass keys checked at every pass whatever the schedule says: a group's tables, whose
   *     cut moves only as far as each of them is known current
   * @param checks where each table's check (restore, then the listing of its replica) runs
   */
  public Reconciler(
      TableRules rules,
      TableDiscovery discovery,
      ReplicationCoordinator coordinator,
      TableStatus board,
      Replicas replicas,
      Clock clock,
      ReconcileSchedule schedule,
      Predicate<TableKey> everyPass,
      TableChecks checks) {
    this.checks = checks;
    this.clock = clock;
    this.schedule = schedule;
    this.everyPass = everyPass;
    this.rules = rules;
    this.discovery = discovery;
    this.coordinator = coordinator;
    this.board = board;
    this.replicas = replicas;
  }

  /**
   * Triggers every table of every rule whose metadata folder changed since its replica last held
   * the head (a catalog's table always: its head is the catalog's), after restoring the status of
   * tables not known yet (the first pass after a start); a rule whose source cannot be listed does
   * not stop the others. A table whose check the schedule defers is neither listed nor triggered.
   * Each table's check runs on {@code checks}; the pass waits for them up to their deadline, and a
   * table whose check from an earlier pass still runs is not checked again.
   */
  public void reconcile() {
    Set<TableKey> seen = new HashSet<>();
    List<TableChecks.Check> started = new ArrayList<>();
    for (TableRule rule : rules.rules()) {
      // before the rule's source is listed: a folder that lists as its replica left it holds no
      // commit made before then that the replica lacks
      long listedFrom = clock.millis();
      for (Found found : found(rule, path -> deferred(rule, path, listedFrom))) {
        seen.add(found.key());
        if (found.deferred() && board.known(found.key())) {
          continue;
        }
        // off this thread, bounded: a replica whose store hangs stalls only its own table
        checks.start(found.key(), () -> check(found, listedFrom)).ifPresent(started::add);
      }
    }
    checks.await(started);
    schedule.retain(seen);
  }

  /** Restores the key's status if not known yet, then triggers it unless it is unchanged. */
  private void check(Found found, long listedFrom) {
    replicas.restore(found.key());
    if (found.deferred()) {
      return;
    }
    boolean unchanged =
        found.listing().filter(l -> replicas.unchangedSince(found.key(), l)).isPresent();
    if (!unchanged) {
      coordinator.trigger(found.key());
    }
    schedule.checked(found.key(), found.listing(), unchanged, listedFrom);
  }

  /**
   * Whether no key of the table at {@code path} has a check due, nor must be checked every pass.
   */
  private boolean deferred(TableRule rule, String path, long nowMs) {
    List<TableKey> keys = rules.keys(rule, path);
    return !keys.isEmpty()
        && keys.stream().noneMatch(key -> everyPass.test(key) || schedule.due(key, nowMs));
  }

  /** Expires the replicas of every table of {@code rule}, each in its lane. */
  public void expire(TableRule rule) {
    for (TableKey key : keys(rule)) {
      coordinator
          .expireNow(key)
          .whenComplete(
              (result, error) -> {
                if (error != null) {
                  LOG.warn(
                      "{}: retention of replica {} failed",
                      key.table(),
                      key.targetLocation(),
                      error);
                } else {
                  LOG.info(
                      "{}: retention of replica {}: {}",
                      key.table(),
                      key.targetLocation(),
                      result.metrics());
                }
              });
    }
  }

  /**
   * Verifies the replicas of every table of {@code rule}, each in its lane, but for those whose
   * previous scheduled verification has not ended yet; {@code verification} records its outcome.
   */
  public void verify(TableRule rule, Function<TableKey, ?> verification) {
    for (TableKey key : keys(rule)) {
      if (!verifying.add(key)) {
        continue;
      }
      coordinator
          .runInLane(key, "verify", verification)
          .whenComplete(
              (result, error) -> {
                verifying.remove(key);
                if (error != null) {
                  LOG.warn(
                      "{}: scheduled verification of replica {} did not complete: {}",
                      key.table(),
                      key.targetLocation(),
                      error.getMessage());
                }
              });
    }
  }

  private List<TableKey> keys(TableRule rule) {
    return found(rule, path -> false).stream().map(Found::key).toList();
  }

  /**
   * A key of a table found, with the listing of its metadata folder that found it, or deferred: not
   * listed, its check not due.
   */
  private record Found(TableKey key, Optional<MetadataListing> listing, boolean deferred) {}

  private List<Found> found(TableRule rule, Predicate<String> deferred) {
    List<Found> found = new ArrayList<>();
    try {
      for (TableDiscovery.DiscoveredTable table : discovery.discover(rule, deferred)) {
        for (TableKey key : rules.keys(rule, table.path())) {
          found.add(new Found(key, table.listing(), table.deferred()));
        }
      }
    } catch (RuntimeException e) {
      board.discoveryFailed(rule.name(), rule.source(), e);
      return List.of();
    }
    board.discovered(rule.name());
    if (rule.catalog().isPresent()) {
      Set<TableKey> now = new HashSet<>();
      found.forEach(f -> now.add(f.key()));
      Set<TableKey> before = listed.put(rule.name(), now);
      if (before != null) {
        before.stream().filter(key -> !now.contains(key)).forEach(board::sourceDropped);
      }
    }
    return found;
  }
}
