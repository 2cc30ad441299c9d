package io.icerepl.merge.state;

import java.time.Duration;
import java.util.List;

/**
 * A replica's record of the replication group it belongs to, written by the service that replicates
 * it, so that anyone holding the replicas alone (an operator in the surviving region, with no
 * service) promotes the group as it was configured: all its members, at a cut read with its
 * clock-skew allowance and transaction window.
 *
 * @param name the group's name
 * @param ref the name of the group's tags
 * @param members every member's replica location, this one included
 * @param clockSkew the allowance for writers' clocks the group's cut is read with
 * @param transactionWindow the quiet time the group's cut is moved back to (zero: off)
 */
public record GroupMembership(
    String name, String ref, List<String> members, Duration clockSkew, Duration transactionWindow) {
  public GroupMembership {
    members = List.copyOf(members);
    if (clockSkew.isNegative() || transactionWindow.isNegative()) {
      throw new IllegalArgumentException("A group's durations cannot be negative");
    }
  }
}
