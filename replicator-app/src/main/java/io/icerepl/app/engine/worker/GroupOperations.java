package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.catalog.EntriesTogether;
import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TablePromoter;
import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.IoErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;

/**
 * What a replication group does to each of its tables' replicas, sharing the lanes' context: a cut
 * tagged, the catalog entries moved to it together, since when each replica is known current, and a
 * consistent promotion at one cut.
 */
public final class GroupOperations {
  private final TableContext context;

  public GroupOperations(TableContext context) {
    this.context = context;
  }

  /**
   * Tags the cut {@code momentMs} of a replication group whose tags are named {@code ref} on the
   * key's replica (see {@link CutTagWriter}); its catalog entry, if any, follows.
   */
  public CutTagWriter.Outcome tagCut(TableKey key, String ref, long momentMs, Duration keep) {
    try {
      return new CutTagWriter(
              context.stores().targetStore(key.targetLocation()),
              context.clock(),
              context.options().maxMetadataBytes())
          .move(
              key.table(),
              key.targetLocation(),
              ref,
              momentMs,
              keep,
              file ->
                  context
                      .replicaEntry(key)
                      .ifPresent(entry -> entry.registrar().register(key.targetLocation(), file)));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot tag group ref '" + ref + "' on " + key.table() + ": " + IoErrors.describe(e), e);
    }
  }

  /**
   * Moves the catalog entries of the keys' replicas, a group's, to the cut tagged {@code cutTag}
   * together where their catalog can ({@link EntriesTogether}), then each to its replica's current
   * version. Run once every replica carries the cut's tag; each commit is a compare-and-swap, so it
   * needs no lane.
   *
   * @return how many entries moved together
   */
  public int moveEntriesTogether(List<TableKey> keys, String cutTag) {
    List<EntriesTogether.Member> members = new ArrayList<>();
    for (TableKey key : keys) {
      Optional<TableContext.ReplicaEntry> entry = context.replicaEntry(key);
      if (entry.isEmpty()) {
        continue;
      }
      try {
        new ReplicaFiles(
                context.stores().targetStore(key.targetLocation()),
                context.options().maxMetadataBytes())
            .head(key.table(), key.targetLocation())
            .ifPresent(
                head ->
                    members.add(
                        new EntriesTogether.Member(
                            key.targetLocation(), head.file(), entry.get().registrar())));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot read the replica of " + key.table() + ": " + IoErrors.describe(e), e);
      }
    }
    int moved = EntriesTogether.move(members, cutTag);
    for (EntriesTogether.Member member : members) {
      member.registrar().register(member.replicaLocation(), member.currentFile());
    }
    return moved;
  }

  /** Whether the key's replica was promoted (its state records a promotion). */
  public boolean isPromoted(TableKey key) {
    return new TablePromoter(
            context.stores().targetStore(key.targetLocation()),
            context.clock(),
            context.options().maxMetadataBytes())
        .promotion(key.table(), key.targetLocation())
        .isPresent();
  }

  /**
   * Since when the key's replica is known current, as its state records it (what a group's cut is
   * computed from); empty before a run or check recorded it, or when the state cannot be read.
   */
  public OptionalLong knownCurrentFrom(TableKey key) {
    try {
      Long recorded =
          new io.icerepl.app.engine.replica.ReplicaFiles(
                  context.stores().targetStore(key.targetLocation()),
                  context.options().maxMetadataBytes())
              .state(key.targetLocation())
              .knownCurrentFromMs();
      return recorded == null ? OptionalLong.empty() : OptionalLong.of(recorded);
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** The key's replica as a member of a group's consistent promotion. */
  public GroupPromotion.Member groupMember(TableKey key) {
    return new GroupPromotion.Member(
        key.table(),
        key.targetLocation(),
        context.stores().targetStore(key.targetLocation()),
        context.replicaEntry(key).map(TableContext.ReplicaEntry::registrar));
  }

  /**
   * Promotes the keys' replicas at one cut of the group whose tags are named {@code ref} ({@link
   * GroupPromotion}): the cut chosen once, then each table promoted at it by {@code atCut} (the
   * service runs {@link #promoteAtCut} in the table's lane).
   */
  public GroupPromotion.Result promoteGroup(
      List<TableKey> keys, String ref, BiFunction<TableKey, String, PromotionResult> atCut) {
    Map<GroupPromotion.Member, TableKey> byMember = new IdentityHashMap<>();
    List<GroupPromotion.Member> members = new ArrayList<>();
    for (TableKey key : keys) {
      GroupPromotion.Member member = groupMember(key);
      byMember.put(member, key);
      members.add(member);
    }
    return new GroupPromotion(context.clock(), context.options().maxMetadataBytes())
        .promote(members, ref, (member, cutTag) -> atCut.apply(byMember.get(member), cutTag));
  }

  /**
   * Promotes the key's replica at a group's cut tag ({@link GroupPromotion}), in now mode; tells
   * the board the replica is a primary now.
   */
  public PromotionResult promoteAtCut(TableKey key, String cutTag) {
    PromotionResult result =
        new GroupPromotion(context.clock(), context.options().maxMetadataBytes())
            .promoteAtCut(groupMember(key), cutTag);
    context.board().promoted(key, result);
    return result;
  }
}
