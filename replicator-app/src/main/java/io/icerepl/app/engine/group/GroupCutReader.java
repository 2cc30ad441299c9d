package io.icerepl.app.engine.group;

import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.logging.Redaction;
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

/**
 * Where a replication group's cut stands: each member's replica read as it is now, with since when
 * the replicator knows it current, through {@link GroupCut}. Reads only.
 */
public final class GroupCutReader {
  private final StoreFactory stores;
  private final long maxMetadataBytes;

  public GroupCutReader(StoreFactory stores, long maxMetadataBytes) {
    this.stores = stores;
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /**
   * One table of a group as the service knows it.
   *
   * @param table the table as the group names it, {@code <namespace>/<table>}
   * @param key its lane, once the table was found under its rule
   * @param knownCurrentFromMs since when its replica is known to hold every earlier source commit
   */
  public record Member(String table, Optional<TableKey> key, OptionalLong knownCurrentFromMs) {}

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
      List<TableAtCut> tables) {}

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
   */
  public record Reading(Report report, OptionalLong tagMomentMs) {}

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
    for (Member member : members) {
      if (member.key().isEmpty()) {
        return noCut(
            name, ref, member.table(), "not found under its rule's target", clockSkew, members);
      }
      if (member.knownCurrentFromMs().isEmpty()) {
        return noCut(name, ref, member.table(), "not known replicated yet", clockSkew, members);
      }
      TableKey key = member.key().get();
      ReplicaFiles files =
          new ReplicaFiles(stores.targetStore(key.targetLocation()), maxMetadataBytes);
      ReplicaFiles.Replica replica;
      try {
        ReplicaState state = files.state(key.targetLocation());
        if (state.promotion() != null) {
          // a primary now: its versions are its writers', its cut the one it was promoted at
          return promoted(name, ref, member.table(), state.promotion(), clockSkew, members);
        }
        replica = files.read(key.table(), key.targetLocation(), Optional.empty());
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
      // a cut tag is one the replicator recorded as one, never a ref that merely bears the name
      cutTags.add(CutTags.carried(head.get().metadata(), replica.state().cutTags()));
      if (clash.isEmpty()) {
        clash = CutTagWriter.clash(member.table(), ref, head.get(), replica.state().cutTags());
        clashing = member.table();
      }
      known.add(
          new GroupMember(
              member.table(), member.knownCurrentFromMs().getAsLong(), head.get().metadata()));
    }
    GroupCut cut = GroupCut.of(known, clockSkew, transactionWindow);
    List<TableAtCut> tables = new ArrayList<>();
    for (Member member : members) {
      OptionalLong snapshot = cut.snapshotIds().get(member.table());
      tables.add(
          new TableAtCut(
              member.table(),
              snapshot.isPresent() ? snapshot.getAsLong() : null,
              Instant.ofEpochMilli(member.knownCurrentFromMs().getAsLong())));
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
            tables);
    // a table whose own ref bears the group's names cannot be tagged: no round tries
    return new Reading(
        report, clash.isPresent() ? OptionalLong.empty() : OptionalLong.of(cut.tagMomentMs()));
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
            report.tables()),
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
      tables.add(
          new TableAtCut(
              member.table(),
              null,
              member.knownCurrentFromMs().isPresent()
                  ? Instant.ofEpochMilli(member.knownCurrentFromMs().getAsLong())
                  : null));
    }
    return new Reading(
        new Report(name, ref, null, null, null, table, null, reason, clockSkew, tables),
        OptionalLong.empty());
  }
}
