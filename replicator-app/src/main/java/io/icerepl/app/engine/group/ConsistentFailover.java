package io.icerepl.app.engine.group;

import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.failover.TablePromotionException;
import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.failover.PromotedMetadata;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.group.GroupCut;
import io.icerepl.merge.group.RecordedGroups;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.GroupMembership;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A consistent failover of tables from their replicas alone, as the command line runs it with no
 * service: the newest cut the replicas' own records prove (each replica's state records since when
 * it is known current; the cut is the earliest of them less the clock-skew allowance), tagged on
 * every table first, so readers and the output name where the tables were promoted, then every
 * table promoted at it ({@link GroupPromotion}). A rerun after a crash finds the cut the promoted
 * tables recorded and completes that one.
 */
public final class ConsistentFailover {
  /** The ref of the tags a failover writes when neither the command nor the replicas name one. */
  public static final String DEFAULT_REF = "failover";

  private final Clock clock;
  private final long maxMetadataBytes;

  public ConsistentFailover(Clock clock, long maxMetadataBytes) {
    this.clock = clock;
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /**
   * One table to promote.
   *
   * @param location the replica's table location (also how messages name it)
   */
  public record Target(String location, ObjectStore store) {}

  /**
   * How the cut is read; each empty part is taken from the group the replicas record, else its
   * default.
   *
   * @param group the group's name or its tags' ref
   * @param clockSkew the allowance for writers' clocks (default one second)
   * @param transactionWindow the quiet time the cut is moved back to (default none)
   * @param keepTags how long the cut tag stays on a table not promoted after all
   * @param partialGroup promote although the replicas record a group some of whose tables are not
   *     named
   */
  public record Settings(
      Optional<String> group,
      Optional<Duration> clockSkew,
      Optional<Duration> transactionWindow,
      Duration keepTags,
      boolean partialGroup) {}

  /**
   * What a failover at the cut would do to one table.
   *
   * @param cutSnapshotId its {@code main} at the cut; null when it had none then
   * @param knownCurrentFrom since when its replica is known current, as it records it
   * @param afterCut snapshots of its {@code main} replicated after the cut, kept on a branch
   * @param newestAfterCut the newest of them; null when there are none
   */
  public record TablePlan(
      String table,
      Long cutSnapshotId,
      Instant knownCurrentFrom,
      int afterCut,
      Instant newestAfterCut) {}

  /**
   * The cut a failover now would promote at.
   *
   * @param ref the name of the cut's tags
   * @param cutTag the cut tag it writes (or, for a rerun, the one the promoted tables recorded)
   * @param cut the moment the tables are read at
   * @param heldBackBy the table known current least recently
   * @param lossWindowSeconds from the cut to now: what the sources committed then is not in the
   *     promoted tables' {@code main}
   * @param alreadyPromotedAt the cut an earlier run promoted some tables at, which a rerun
   *     completes; empty when none was promoted
   * @param onEveryTable whether every table carries the cut tag already (an earlier tagging's, no
   *     older than the proven cut): nothing to tag
   */
  public record Plan(
      String ref,
      String cutTag,
      Instant cut,
      String heldBackBy,
      double lossWindowSeconds,
      List<TablePlan> tables,
      Optional<String> alreadyPromotedAt,
      boolean onEveryTable) {}

  /** The cut and what each table would lose, reading only. */
  public Plan plan(List<Target> targets, Settings settings) {
    Read read = read(targets, settings);
    return read.plan();
  }

  /**
   * Tags the proven cut on every table, then promotes each at it.
   *
   * @throws TablePromotionException naming the table when the cut cannot be computed or tagged, or
   *     a table was promoted on its own or at another cut; tables not promoted are left as they
   *     were (but for the cut tag, which is an ordinary tag of a moment they held)
   */
  public GroupPromotion.Result promote(List<Target> targets, Settings settings) {
    Read read = read(targets, settings);
    Plan plan = read.plan();
    List<GroupPromotion.Member> members = groupMembers(targets);
    // every table must have a snapshot at the cut before any is tagged: a refusal writes nothing
    for (TablePlan table : plan.tables()) {
      if (table.cutSnapshotId() == null) {
        throw new TablePromotionException(
            table.table(),
            "it had no snapshot at the cut "
                + plan.cut()
                + ", so the group has no moment all its tables show (the cut precedes its first"
                + " replicated commit: once its replica records itself current after that"
                + " commit, the cut holds it); nothing was written");
      }
    }
    if (!plan.onEveryTable()) {
      long moment = CutTags.momentOfTag(plan.ref(), plan.cutTag()).getAsLong();
      for (Target target : targets) {
        CutTagWriter.Outcome outcome;
        try {
          outcome =
              new CutTagWriter(target.store(), clock, maxMetadataBytes)
                  .move(
                      target.location(),
                      target.location(),
                      plan.ref(),
                      moment,
                      settings.keepTags(),
                      file -> {});
        } catch (IOException e) {
          throw new TablePromotionException(
              target.location(),
              "cannot tag the cut " + plan.cutTag() + ": " + e.getMessage(),
              new UncheckedIOException(e));
        }
        if (outcome == CutTagWriter.Outcome.NO_SNAPSHOT) {
          throw new TablePromotionException(
              target.location(),
              "it had no snapshot at the cut "
                  + plan.cut()
                  + ", so the group has no moment all its tables show (the cut precedes its first"
                  + " replicated commit: once its replica records itself current after that"
                  + " commit, the cut holds it); nothing was promoted");
        }
      }
    }
    return new GroupPromotion(clock, maxMetadataBytes).promote(members, plan.ref());
  }

  private record Read(Plan plan) {}

  private Read read(List<Target> targets, Settings settings) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("A consistent promotion needs at least one table");
    }
    List<GroupMembership> recorded = new ArrayList<>();
    List<String> promotedAt = new ArrayList<>();
    for (Target target : targets) {
      ReplicaState state = state(target);
      if (state.group() != null) {
        recorded.add(state.group());
      }
      if (state.promotion() != null && state.promotion().cutTag() != null) {
        promotedAt.add(state.promotion().cutTag());
      }
    }
    List<String> locations = targets.stream().map(Target::location).toList();
    Map<String, List<String>> leftOut = RecordedGroups.leftOut(locations, recorded);
    if (!leftOut.isEmpty() && !settings.partialGroup()) {
      Map.Entry<String, List<String>> first = leftOut.entrySet().iterator().next();
      throw new TablePromotionException(
          locations.get(0),
          "the replicas record group "
              + first.getKey()
              + ", whose tables "
              + first.getValue()
              + " are not named: promoting part of a group leaves the rest at no cut with it."
              + " Name every table of the group, or give --partial-group to promote these alone;"
              + " nothing was written");
    }
    Optional<GroupMembership> group = RecordedGroups.common(recorded);
    if (group.isPresent()
        && settings.group().isPresent()
        && !settings.group().get().equals(group.get().name())
        && !settings.group().get().equals(group.get().ref())) {
      throw new TablePromotionException(
          locations.get(0),
          "the replicas record group "
              + group.get().name()
              + " (its tags named "
              + group.get().ref()
              + "), not "
              + settings.group().get()
              + "; give that name, or none; nothing was written");
    }
    String ref =
        settings
            .group()
            .map(
                name ->
                    group
                        .filter(g -> g.name().equals(name) || g.ref().equals(name))
                        .map(GroupMembership::ref)
                        .orElse(name))
            .or(() -> group.map(GroupMembership::ref))
            .orElse(DEFAULT_REF);
    Duration skew =
        settings
            .clockSkew()
            .or(() -> group.map(GroupMembership::clockSkew))
            .orElse(Duration.ofSeconds(1));
    Duration window =
        settings
            .transactionWindow()
            .or(() -> group.map(GroupMembership::transactionWindow))
            .orElse(Duration.ZERO);
    Instant now = clock.instant();
    GroupCutReader reader =
        new GroupCutReader(location -> storeOf(targets, location), maxMetadataBytes);
    List<GroupCutReader.Member> members =
        locations.stream().map(l -> new GroupCutReader.Member(l, Optional.of(l))).toList();
    if (!promotedAt.isEmpty()) {
      // a rerun: the cut is the one the promoted tables recorded (GroupPromotion checks they agree)
      String cutTag = promotedAt.get(0);
      long moment = CutTags.momentOfTag(ref, cutTag).orElse(0L);
      return new Read(
          new Plan(
              ref,
              cutTag,
              Instant.ofEpochMilli(moment),
              null,
              Math.max(0, now.toEpochMilli() - moment) / 1000.0,
              List.of(),
              Optional.of(cutTag),
              true));
    }
    GroupCutReader.Reading reading = reader.read(ref, ref, members, skew, window, now);
    GroupCutReader.Report report = reading.report();
    if (reading.cut().isEmpty() || reading.tagMomentMs().isEmpty()) {
      // no cut proven by the records (a replica records none yet): the newest cut tag every
      // replica carries is a cut too, else nothing can be promoted consistently
      String tagged;
      try {
        tagged = new GroupPromotion(clock, maxMetadataBytes).chooseCut(groupMembers(targets), ref);
      } catch (TablePromotionException e) {
        throw new TablePromotionException(
            report.heldBackBy() == null ? locations.get(0) : report.heldBackBy(),
            "no cut can be proven from the replicas ("
                + report.reason()
                + ") and no cut tag of "
                + ref
                + " is on every table; nothing was written");
      }
      long moment = CutTags.momentOfTag(ref, tagged).getAsLong();
      return new Read(
          new Plan(
              ref,
              tagged,
              Instant.ofEpochMilli(moment),
              report.heldBackBy(),
              Math.max(0, now.toEpochMilli() - moment) / 1000.0,
              List.of(),
              Optional.empty(),
              true));
    }
    GroupCut cut = reading.cut().get();
    long moment = reading.tagMomentMs().getAsLong();
    // a cut tag every replica carries at this moment or later (a fail-back's, the service's) is
    // as new a cut: the tables are promoted at it, nothing tagged
    Optional<String> carried =
        Optional.ofNullable(report.cutTag())
            .filter(tag -> CutTags.momentOfTag(ref, tag).orElse(Long.MIN_VALUE) >= moment);
    long at = carried.map(tag -> CutTags.momentOfTag(ref, tag).getAsLong()).orElse(moment);
    List<TablePlan> tables = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Target target = targets.get(i);
      TableMetadata metadata = head(target);
      OptionalLong atCut =
          carried.isPresent()
              ? tagSnapshot(metadata, carried.get())
              : atCut(cut, target.location());
      GroupCutReader.TableAtCut table = report.tables().get(i);
      List<Snapshot> after = List.of();
      Optional<Long> main = metadata.currentSnapshotId();
      if (atCut.isPresent() && main.isPresent()) {
        after = PromotedMetadata.afterCut(metadata, main.get(), atCut.getAsLong());
      }
      tables.add(
          new TablePlan(
              target.location(),
              atCut.isPresent() ? atCut.getAsLong() : null,
              table.knownCurrentFrom(),
              after.size(),
              after.stream()
                  .map(s -> Instant.ofEpochMilli(s.timestampMs()))
                  .max(Instant::compareTo)
                  .orElse(null)));
    }
    return new Read(
        new Plan(
            ref,
            carried.orElse(CutTags.name(ref, moment)),
            Instant.ofEpochMilli(at),
            cut.heldBackBy(),
            Math.max(0, now.toEpochMilli() - at) / 1000.0,
            tables,
            Optional.empty(),
            carried.isPresent()));
  }

  /** The snapshot {@code tag} names in the replica's metadata as already read. */
  private static OptionalLong tagSnapshot(TableMetadata metadata, String tag) {
    Long id = metadata.refs().get(tag);
    return id == null ? OptionalLong.empty() : OptionalLong.of(id);
  }

  private static List<GroupPromotion.Member> groupMembers(List<Target> targets) {
    List<GroupPromotion.Member> members = new ArrayList<>();
    for (Target target : targets) {
      members.add(
          new GroupPromotion.Member(
              target.location(), target.location(), target.store(), Optional.empty()));
    }
    return members;
  }

  /** {@code main} at the cut, as the cut read it for the table. */
  private static OptionalLong atCut(GroupCut cut, String table) {
    OptionalLong id = cut.snapshotIds().get(table);
    return id == null ? OptionalLong.empty() : id;
  }

  private static ObjectStore storeOf(List<Target> targets, String location) {
    return targets.stream()
        .filter(t -> t.location().equals(location))
        .findFirst()
        .orElseThrow()
        .store();
  }

  private ReplicaState state(Target target) {
    try {
      return new ReplicaFiles(target.store(), maxMetadataBytes).state(target.location());
    } catch (IOException e) {
      throw new TablePromotionException(
          target.location(), e.getMessage(), new UncheckedIOException(e));
    }
  }

  private TableMetadata head(Target target) {
    try {
      return new ReplicaFiles(target.store(), maxMetadataBytes)
          .head(target.location(), target.location())
          .orElseThrow(() -> new TablePromotionException(target.location(), "it has no replica"))
          .metadata();
    } catch (IOException e) {
      throw new TablePromotionException(
          target.location(), e.getMessage(), new UncheckedIOException(e));
    }
  }
}
