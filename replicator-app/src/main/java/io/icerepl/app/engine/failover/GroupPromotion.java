package io.icerepl.app.engine.failover;

import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.failover.PromotedMetadata;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * A consistent promotion (failover) of a replication group: every table promoted at one cut, the
 * newest cut tag of the group every replica's state records (see {@link CutTags}), so the promoted
 * tables show one moment of their sources. Each table's {@code main} is its cut tag's snapshot;
 * what was replicated after the cut stays on a branch. The cut is chosen once: a rerun after a
 * crash finds the cut the promoted tables recorded and completes that one, never a newer one.
 */
public final class GroupPromotion {
  private final Clock clock;
  private final long maxMetadataBytes;

  public GroupPromotion(Clock clock, long maxMetadataBytes) {
    this.clock = clock;
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /**
   * One table of the group.
   *
   * @param table how messages name it
   * @param location the replica's table location
   * @param store the replica's store
   * @param entry the replica's catalog entry, moved to the promoted version
   */
  public record Member(
      String table, String location, ObjectStore store, Optional<ReplicaRegistrar> entry) {}

  /**
   * What the promotion did to one table.
   *
   * @param cutSnapshotId the promoted {@code main}: the snapshot at the cut
   * @param keptAfterCut snapshots replicated after the cut, kept on {@code branch}
   * @param branch the branch keeping them, null when there were none
   * @param newestKeptCommit the newest of them, null when there were none: between the cut and it
   *     lies what the tables' readers lose unless a writer takes the branch back
   */
  public record TableResult(
      String table,
      PromotionResult result,
      long cutSnapshotId,
      int keptAfterCut,
      String branch,
      Instant newestKeptCommit) {}

  /**
   * @param cutTag the cut every table was promoted at
   * @param cut its moment
   */
  public record Result(String cutTag, Instant cut, List<TableResult> tables) {}

  /** Promotes one table at a cut tag: directly, or in the table's lane in the service. */
  @FunctionalInterface
  public interface AtCut {
    PromotionResult promote(Member member, String cutTag);
  }

  /**
   * Promotes every member at the group's cut, in now mode (what the replicas hold).
   *
   * @param ref the group's tag name
   * @throws TablePromotionException when no cut is common to every replica, or a table was promoted
   *     on its own or at another cut; the tables not promoted yet are left as they were
   */
  public Result promote(List<Member> members, String ref) {
    return promote(members, ref, this::promoteAtCut);
  }

  /** As above, each table promoted by {@code atCut}. */
  public Result promote(List<Member> members, String ref, AtCut atCut) {
    String cutTag = chooseCut(members, ref);
    List<TableResult> tables = new ArrayList<>();
    for (Member member : members) {
      tables.add(describe(member.table(), atCut.promote(member, cutTag), cutTag));
    }
    return new Result(
        cutTag, Instant.ofEpochMilli(CutTags.momentOfTag(ref, cutTag).getAsLong()), tables);
  }

  /** Promotes {@code member} at {@code cutTag}, in now mode, as {@code promote} does. */
  public PromotionResult promoteAtCut(Member member, String cutTag) {
    return new TablePromoter(member.store(), clock, maxMetadataBytes, member.entry())
        .promote(
            member.table(),
            member.location(),
            PromotionMode.NOW,
            OptionalLong.empty(),
            Optional.of(cutTag));
  }

  /**
   * The cut a promotion of the group uses: the one a promoted table recorded (an earlier run
   * stopped part-way), else the newest cut tag every replica's state records as written by the
   * group's tagging: a source's ref named like one is not a cut.
   */
  public String chooseCut(List<Member> members, String ref) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("A consistent promotion needs at least one table");
    }
    Set<String> recorded = new TreeSet<>();
    List<Set<String>> refs = new ArrayList<>();
    for (Member member : members) {
      ReplicaFiles files = new ReplicaFiles(member.store(), maxMetadataBytes);
      try {
        ReplicaState state = files.state(member.location());
        Promotion promotion = state.promotion();
        if (promotion != null) {
          if (promotion.cutTag() == null || !CutTags.isOf(ref, promotion.cutTag())) {
            throw new TablePromotionException(
                member.table(),
                "it was promoted on its own, not at a cut of "
                    + ref
                    + "; the group cannot be promoted at one cut");
          }
          recorded.add(promotion.cutTag());
          continue;
        }
        // the cut tags the replicator recorded: a ref of the source's that bears the group's
        // naming is never a cut
        refs.add(
            files
                .head(member.table(), member.location())
                .map(head -> CutTags.carried(head.metadata(), state.cutTags()))
                .orElse(Set.of()));
      } catch (IOException e) {
        throw new TablePromotionException(
            member.table(), IoErrors.describe(e), new UncheckedIOException(e));
      }
    }
    if (recorded.size() > 1) {
      throw new TablePromotionException(
          members.get(0).table(),
          "the group's tables were promoted at different cuts "
              + recorded
              + "; nothing was written");
    }
    if (recorded.size() == 1) {
      String cut = recorded.iterator().next();
      return cut; // the tables not promoted yet are refused by their promoter if they lack it
    }
    return CutTags.newestOnAll(ref, refs)
        .orElseThrow(
            () ->
                new TablePromotionException(
                    members.get(0).table(),
                    "no cut tag of "
                        + ref
                        + " is on every table of the group (the service tags a group's cut on its"
                        + " replicas every tag-interval); nothing was written"));
  }

  private static TableResult describe(String table, PromotionResult result, String cutTag) {
    TableMetadata metadata = result.metadata();
    long cut = metadata.currentSnapshotId().orElseThrow();
    String branch = PromotedMetadata.replicatedAfterCut(cutTag);
    Long kept = metadata.refs().get(branch);
    if (kept == null) {
      return new TableResult(table, result, cut, 0, null, null);
    }
    List<Snapshot> after = PromotedMetadata.afterCut(metadata, kept, cut);
    Instant newest =
        after.stream()
            .map(snapshot -> Instant.ofEpochMilli(snapshot.timestampMs()))
            .max(Instant::compareTo)
            .orElse(null);
    return new TableResult(table, result, cut, after.size(), branch, newest);
  }
}
