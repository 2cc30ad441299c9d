package io.icerepl.app.engine.group;

import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.logging.Redaction;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.group.GroupCut;
import io.icerepl.merge.group.GroupMember;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * Where a replication group's cut stands: each member's replica read as it is now, with since when
 * the replicator knows it current, through {@link GroupCut}. Reads only.
 */
public final class GroupCutReader {
  private final Function<String, ObjectStore> stores;
  private final long maxMetadataBytes;

  public GroupCutReader(StoreFactory stores, long maxMetadataBytes) {
    this(stores::targetStore, maxMetadataBytes);
  }

  /**
   * @param stores the store of each replica location
   */
  public GroupCutReader(Function<String, ObjectStore> stores, long maxMetadataBytes) {
    this.stores = stores;
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /**
   * One table of a group.
   *
   * @param table the table as the group names it: {@code <namespace>/<table>} in the service, its
   *     replica's location on the command line
   * @param location its replica's location, once the table was found under its rule
   */
  public record Member(String table, Optional<String> location) {
    public static Member of(String table, Optional<TableKey> key) {
      return new Member(table, key.map(TableKey::targetLocation));
    }
  }

  /**
   * A group's cut as the status API shows it.
   *
   * @param cut the moment every table is known replicated; null while a table never was
   * @param cutLagSeconds how far the cut is behind now; null without a cut
   * @param heldBackBy the table the cut waits for (the one known current least recently, or one not
   *     replicated yet)
   * @param heldBackSince since when that table holds the cut; null when it never was replicated
   * @param reason why that table holds it back, when it is not merely the least recent: it cannot
   *     be read, or tagged (a ref of its own bears the group's names), or it was promoted
   * @param ref the name of the group's tags on the replicas: the moving tag, and the prefix of the
   *     cut tags
   * @param cutTag the newest cut tag every replica's state records as the group's tagging wrote it
   *     (a ref merely named like one is not a cut): the name to read each table at with {@code
   *     VERSION AS OF} for one moment of them all; null before the first; for a promoted group, the
   *     cut it was promoted at
   * @param tables each table's snapshot at the cut
   * @param lossWindowSeconds what a consistent failover now ({@code mode=now}) would lose: the time
   *     from the moment it would promote at (the cut less the clock-skew allowance, a whole second)
   *     to now; null without a cut
   */
  public record Report(
      String name,
      String ref,
      String cutTag,
      Instant cut,
      Double cutLagSeconds,
      String heldBackBy,
      Instant heldBackSince,
      String reason,
      Duration clockSkew,
      List<TableAtCut> tables,
      Double lossWindowSeconds) {}

  /**
   * @param snapshotId the replica's {@code main} at the cut, to read with {@code VERSION AS OF};
   *     null when the table had no snapshot then
   * @param knownCurrentFrom since when the table is known replicated
   */
  public record TableAtCut(String table, Long snapshotId, Instant knownCurrentFrom) {}

  /**
   * A group's cut as read, with the moment its cut tag names.
   *
   * @param tagMomentMs the whole second the cut is tagged for; empty without a cut
   * @param cut the cut with each table's snapshot at it; empty without one
   */
  public record Reading(Report report, OptionalLong tagMomentMs, Optional<GroupCut> cut) {
    public Reading(Report report, OptionalLong tagMomentMs) {
      this(report, tagMomentMs, Optional.empty());
    }
  }

  /**
   * @param ref the name of the group's tags (see {@link io.icerepl.merge.group.CutTags})
   */
  public Report read(
      String name, String ref, List<Member> members, Duration clockSkew, Instant now) {
    return read(name, ref, members, clockSkew, Duration.ZERO, now).report();
  }

  /**
   * As {@link #read(String, String, List, Duration, Instant)}, the tables read at a moment no
   * multi-table transaction whose snapshots lie within {@code transactionWindow} straddles ({@link
   * io.icerepl.merge.group.QuietMoment}).
   */
  public Reading read(
      String name,
      String ref,
      List<Member> members,
      Duration clockSkew,
      Duration transactionWindow,
      Instant now) {
    List<GroupMember> known = new ArrayList<>();
    List<Set<String>> cutTags = new ArrayList<>();
    Optional<String> clash = Optional.empty();
    String clashing = null;
    List<OptionalLong> knownFrom = new ArrayList<>();
    for (Member member : members) {
      if (member.location().isEmpty()) {
        return noCut(
            name, ref, member.table(), "not found under its rule's target", clockSkew, members);
      }
      String location = member.location().get();
      ReplicaFiles files = new ReplicaFiles(stores.apply(location), maxMetadataBytes);
      ReplicaFiles.Replica replica;
      try {
        ReplicaState state = files.state(location);
        if (state.promotion() != null) {
          // a primary now: its versions are its writers', its cut the one it was promoted at
          return promoted(name, ref, member.table(), state.promotion(), clockSkew, members);
        }
        replica = files.read(member.table(), location, Optional.empty());
      } catch (IOException | RuntimeException e) {
        return noCut(
            name,
            ref,
            member.table(),
            // shown by the status API: redacted as every error it shows
            "its replica cannot be read: " + Redaction.apply(String.valueOf(e.getMessage())),
            clockSkew,
            members);
      }
      Optional<ReplicaHead> head = replica.head();
      if (head.isEmpty()) {
        return noCut(name, ref, member.table(), "it has no replica yet", clockSkew, members);
      }
      // the replica's own record: anyone holding the replicas computes the same cut
      Long recorded = replica.state().knownCurrentFromMs();
      if (recorded == null) {
        return noCut(
            name,
            ref,
            member.table(),
            "its replica records no time it was known current yet (a run or check that finds it"
                + " holding its source's head records one)",
            clockSkew,
            members);
      }
      knownFrom.add(OptionalLong.of(recorded));
      // a cut tag is one the replicator recorded as one, never a ref that merely bears the name
      cutTags.add(CutTags.carried(head.get().metadata(), replica.state().cutTags()));
      if (clash.isEmpty()) {
        clash = CutTagWriter.clash(member.table(), ref, head.get(), replica.state().cutTags());
        clashing = member.table();
      }
      known.add(new GroupMember(member.table(), recorded, head.get().metadata()));
    }
    GroupCut cut = GroupCut.of(known, clockSkew, transactionWindow);
    List<TableAtCut> tables = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      Member member = members.get(i);
      OptionalLong snapshot = cut.snapshotIds().get(member.table());
      tables.add(
          new TableAtCut(
              member.table(),
              snapshot.isPresent() ? snapshot.getAsLong() : null,
              Instant.ofEpochMilli(knownFrom.get(i).getAsLong())));
    }
    Instant at = Instant.ofEpochMilli(cut.cutMs());
    Report report =
        new Report(
            name,
            ref,
            CutTags.newestOnAll(ref, cutTags).orElse(null),
            at,
            Math.max(0, now.toEpochMilli() - cut.cutMs()) / 1000.0,
            clash.isPresent() ? clashing : cut.heldBackBy(),
            at,
            clash.orElse(null),
            clockSkew,
            tables,
            Math.max(0, now.toEpochMilli() - cut.tagMomentMs()) / 1000.0);
    // a table whose own ref bears the group's names cannot be tagged: no round tries
    return new Reading(
        report,
        clash.isPresent() ? OptionalLong.empty() : OptionalLong.of(cut.tagMomentMs()),
        Optional.of(cut));
  }

  private static Reading promoted(
      String name,
      String ref,
      String table,
      Promotion promotion,
      Duration clockSkew,
      List<Member> members) {
    boolean atCut = promotion.cutTag() != null && CutTags.isOf(ref, promotion.cutTag());
    String reason =
        atCut
            ? "promoted at cut "
                + promotion.cutTag()
                + " ("
                + promotion.mode()
                + " mode): a primary now, the group's cut no longer moves"
            : "promoted on its own, not at a cut of the group: a primary now";
    Reading none = noCut(name, ref, table, reason, clockSkew, members);
    Report report = none.report();
    return new Reading(
        new Report(
            report.name(),
            report.ref(),
            atCut ? promotion.cutTag() : null,
            report.cut(),
            report.cutLagSeconds(),
            report.heldBackBy(),
            report.heldBackSince(),
            report.reason(),
            report.clockSkew(),
            report.tables(),
            null),
        OptionalLong.empty());
  }

  private static Reading noCut(
      String name,
      String ref,
      String table,
      String reason,
      Duration clockSkew,
      List<Member> members) {
    List<TableAtCut> tables = new ArrayList<>();
    for (Member member : members) {
      tables.add(new TableAtCut(member.table(), null, null));
    }
    return new Reading(
        new Report(name, ref, null, null, null, table, null, reason, clockSkew, tables, null),
        OptionalLong.empty());
  }
}
