package io.icerepl.merge.group;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A group's cut: the latest moment at which every table of the group is known replicated, and what
 * each replica's {@code main} showed then. Read at those snapshots, the tables show one moment of
 * their sources, as a reader of all the sources at that moment would have seen them.
 *
 * @param cutMs the moment: the earliest of the members' {@code knownCurrentAtMs}
 * @param heldBackBy the table whose replication the cut waits for (the one known current least
 *     recently)
 * @param snapshotIds each table's {@code main} at the cut less the clock-skew allowance; empty for
 *     a table that had no snapshot then
 */
public record GroupCut(long cutMs, String heldBackBy, Map<String, OptionalLong> snapshotIds) {
  public GroupCut {
    snapshotIds = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(snapshotIds));
  }

  /**
   * The cut of these tables. The allowance is for writers whose clocks run behind the replicator's:
   * a commit stamped before the cut by such a clock may have been made after the replicator read
   * that table's head, so the snapshots are taken as of the cut less the allowance.
   *
   * @throws IllegalArgumentException for a group of no tables or a negative allowance
   */
  public static GroupCut of(List<GroupMember> members, Duration skewAllowance) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("A group needs at least one table");
    }
    if (skewAllowance.isNegative()) {
      throw new IllegalArgumentException("The clock-skew allowance cannot be negative");
    }
    GroupMember oldest = members.get(0);
    for (GroupMember member : members) {
      if (member.knownCurrentAtMs() < oldest.knownCurrentAtMs()) {
        oldest = member;
      }
    }
    long cut = oldest.knownCurrentAtMs();
    long readAt = cut - skewAllowance.toMillis();
    Map<String, OptionalLong> snapshots = new LinkedHashMap<>();
    for (GroupMember member : members) {
      snapshots.put(member.table(), MainAt.snapshotAt(member.replica(), readAt));
    }
    return new GroupCut(cut, oldest.table(), snapshots);
  }
}
