package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.head.MetadataListing;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When reconciliation next looks at each table. Events are the primary path and reconciliation the
 * backstop for a lost one, so a table that has not changed need not be listed at every pass: each
 * check that finds it unchanged and its replica in sync doubles the time to its next check, from
 * the pass interval up to {@code idleInterval}; a check that finds its metadata folder changed, or
 * its replica behind, diverged or failing, brings it back to every pass. A lost event on a table
 * idle for long is therefore caught within {@code idleInterval} plus one pass interval, and one on
 * a table that changed recently much sooner; 10,000 idle tables cost about {@code passInterval /
 * idleInterval} of the listings a check at every pass makes.
 */
public final class ReconcileSchedule {
  private final long passMs;
  private final long idleMs;
  private final Map<TableKey, Entry> entries = new ConcurrentHashMap<>();

  /** What the last check of a key saw, and when the next one is due. */
  private record Entry(
      Optional<MetadataListing> seen, long intervalMs, boolean atIdle, long dueMs) {}

  /**
   * @param passInterval how often reconciliation passes run
   * @param idleInterval the longest an unchanged table goes between checks; at most {@code
   *     passInterval} checks every table at every pass
   */
  public ReconcileSchedule(Duration passInterval, Duration idleInterval) {
    if (passInterval.isNegative() || idleInterval.isNegative()) {
      throw new IllegalArgumentException(
          "Reconciliation intervals cannot be negative: " + passInterval + ", " + idleInterval);
    }
    this.passMs = passInterval.toMillis();
    this.idleMs = Math.max(passMs, idleInterval.toMillis());
  }

  /** A schedule that checks every table at every pass. */
  public static ReconcileSchedule everyPass() {
    return new ReconcileSchedule(Duration.ZERO, Duration.ZERO);
  }

  /**
   * Whether the key's check is due at {@code nowMs}: never checked, or its time has come within
   * half a pass (passes run at a fixed delay, so one starting a little early does not wait a whole
   * pass more).
   */
  public boolean due(TableKey key, long nowMs) {
    Entry entry = entries.get(key);
    return entry == null || nowMs >= entry.dueMs() - passMs / 2;
  }

  /**
   * Records a check of the key at {@code nowMs}.
   *
   * @param listing what its source's metadata folder listed; empty for a catalog's table
   * @param unchanged whether the check found its replica holding the head of a folder listed alike
   *     since its last run, nothing settling: no run needed
   */
  public void checked(
      TableKey key, Optional<MetadataListing> listing, boolean unchanged, long nowMs) {
    Entry last = entries.get(key);
    boolean idle = unchanged && last != null && listing.isPresent() && listing.equals(last.seen());
    if (!idle) {
      entries.put(key, new Entry(listing, passMs, false, nowMs + passMs));
    } else if (last.atIdle() || last.intervalMs() * 2 >= idleMs) {
      // the first time at the idle interval, a key-dependent share of it: tables found in one pass
      // (all of them, after a start) are listed again spread over the idle interval, not together
      long interval = last.atIdle() ? idleMs : spread(key);
      entries.put(key, new Entry(listing, interval, true, nowMs + interval));
    } else {
      long interval = Math.max(passMs, last.intervalMs() * 2);
      entries.put(key, new Entry(listing, interval, false, nowMs + interval));
    }
  }

  private long spread(TableKey key) {
    return passMs + Math.floorMod(key.hashCode(), idleMs - passMs + 1);
  }

  /** Forgets every key not in {@code found}: tables gone from their rule's source. */
  public void retain(Set<TableKey> found) {
    entries.keySet().retainAll(found);
  }
}
