package io.icerepl.merge.group;

import java.time.Duration;
import java.util.Collections;
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
 * @param readAtMs the moment the tables are read at: the cut less the clock-skew allowance, moved
 *     back out of any multi-table transaction ({@link QuietMoment})
 * @param tagMomentMs the moment a cut tag for this cut names: as {@code readAtMs}, a whole second
 * @param snapshotIds each table's {@code main} at {@code readAtMs}; empty for a table that had no
 *     snapshot then
 */
public record GroupCut(
    long cutMs,
    String heldBackBy,
    long readAtMs,
    long tagMomentMs,
    Map<String, OptionalLong> snapshotIds) {
  public GroupCut {
    snapshotIds = Collections.unmodifiableMap(new LinkedHashMap<>(snapshotIds));
  }

  /**
   * The cut of these tables. The allowance is for writers whose clocks run behind the replicator's:
   * a commit stamped before the cut by such a clock may have been made after the replicator read
   * that table's head, so the snapshots are taken as of the cut less the allowance.
   *
   * @throws IllegalArgumentException for a group of no tables or a negative allowance
   */
  public static GroupCut of(List<GroupMember> members, Duration skewAllowance) {
    return of(members, skewAllowance, Duration.ZERO);
  }

  /**
   * As {@link #of(List, Duration)}, read at a moment no table's {@code main} changed in the {@code
   * transactionWindow} before, so that no multi-table transaction whose snapshots lie closer
   * together than the window is split ({@link QuietMoment}).
   */
  public static GroupCut of(
      List<GroupMember> members, Duration skewAllowance, Duration transactionWindow) {
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
    List<io.icerepl.merge.model.TableMetadata> replicas =
        members.stream().map(GroupMember::replica).toList();
    long readAt =
        QuietMoment.before(cut - skewAllowance.toMillis(), 1, transactionWindow, replicas);
    long tagMoment =
        QuietMoment.before(cut - skewAllowance.toMillis(), 1000, transactionWindow, replicas);
    Map<String, OptionalLong> snapshots = new LinkedHashMap<>();
    for (GroupMember member : members) {
      snapshots.put(member.table(), MainAt.snapshotAt(member.replica(), readAt));
    }
    return new GroupCut(cut, oldest.table(), readAt, tagMoment, snapshots);
  }
}
