package io.icerepl.merge.state;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * When a replica's state records since when the replica is known current ({@link
 * ReplicaState#knownCurrentFromMs()}), the time a group's cut is computed from by anyone holding
 * the replicas. A run that committed records it with its commit's lease, at the cost of one state
 * write; a check that found the replica already current records it only when the recorded time is
 * older than the policy's interval, since each record is a write under the table's lease.
 *
 * @param idleInterval about how old the recorded time may grow before a check that found nothing to
 *     replicate records a newer one (from three quarters of it on); empty: such checks never record
 *     (the table is in no group)
 * @param group the group the service replicates the table in, recorded with the time; empty leaves
 *     whatever membership the state records as it is (a run of the command line knows no group)
 */
public record KnownCurrent(Optional<Duration> idleInterval, Optional<GroupMembership> group) {
  /** Every run records, whether it committed or not: the command line's {@code replicate}. */
  public static final KnownCurrent EVERY_RUN =
      new KnownCurrent(Optional.of(Duration.ZERO), Optional.empty());

  /** Only runs that commit record: a service's table in no group. */
  public static final KnownCurrent ON_COMMIT = new KnownCurrent(Optional.empty(), Optional.empty());

  public KnownCurrent {
    Objects.requireNonNull(idleInterval);
    Objects.requireNonNull(group);
    if (idleInterval.isPresent() && idleInterval.get().isNegative()) {
      throw new IllegalArgumentException("The known-current interval cannot be negative");
    }
  }

  /** A group member's policy: recorded at least every {@code interval}, with its membership. */
  public static KnownCurrent member(Duration interval, GroupMembership group) {
    return new KnownCurrent(Optional.of(interval), Optional.of(group));
  }

  /**
   * Whether a check that began at {@code fromMs} and found the replica (whose state is {@code
   * state}) current has a record to write.
   */
  public boolean dueWhenIdle(ReplicaState state, long fromMs) {
    if (state.promotion() != null) {
      return false; // a primary is known current with nothing: its writers are its own
    }
    if (group.isPresent() && !group.get().equals(state.group())) {
      return true;
    }
    if (idleInterval.isEmpty()) {
      return false;
    }
    Long recorded = state.knownCurrentFromMs();
    // three quarters: a check asked for every interval finds the record due, though the check
    // before it began a little late
    return recorded == null || fromMs - recorded >= idleInterval.get().toMillis() * 3 / 4;
  }

  /** The state recording the replica known current from {@code fromMs}, with the group. */
  public ReplicaState recorded(ReplicaState state, long fromMs) {
    if (state.promotion() != null) {
      return state;
    }
    ReplicaState known = state.withKnownCurrentFrom(fromMs);
    return group.isPresent() && !group.get().equals(known.group())
        ? known.withGroup(group.get())
        : known;
  }
}
