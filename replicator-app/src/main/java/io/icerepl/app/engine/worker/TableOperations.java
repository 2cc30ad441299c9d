package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.CatalogRegistrars;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.EntriesTogether;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.FailbackSummary;
import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TableFailback;
import io.icerepl.app.engine.failover.TablePromoter;
import io.icerepl.app.engine.failover.TablePromotionException;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.retention.DeletionProgress;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.verify.VerifyResult;
import io.icerepl.app.engine.verify.VerifySource;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.path.PathMapping;
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
import java.util.function.Consumer;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The operations run on a table on demand, beside the lane's runs and sharing their context:
 * expire, verify, promote (failover) and fail back.
 */
public final class TableOperations {
  private final TableContext context;

  public TableOperations(TableContext context) {
    this.context = context;
  }

  public RetentionResult expire(TableKey key) {
    return RetentionRunner.expire(
        context.stores().targetStore(key.targetLocation()),
        context.clock(),
        key.targetLocation(),
        context.rules().rule(key.rule()).retention(),
        context.options().maxMetadataBytes(),
        DeletionProgress.Listener.NONE);
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

  /**
   * Verifies the key's replica against its rule's source, whose head is resolved as {@link
   * TableRunner#replicate} resolves it (the catalog's pointer, else the folder's settled head),
   * reading only; tells the board the outcome, or that it could not complete.
   */
  public VerifyReport verify(TableKey key) {
    try {
      TableContext.Source source = context.source(key);
      ObjectStore sourceStore = context.stores().sourceStore(source.location());
      String head =
          source
              .catalogs()
              .sourceHead()
              .orElseGet(
                  () ->
                      new FileSystemHeadResolver(
                          sourceStore, context.clock(), context.options().settleTime()))
              .head(source.location())
              .file();
      List<String> first = new ArrayList<>();
      VerifyResult result =
          new TableVerifier(
                  context.stores().targetStore(key.targetLocation()),
                  context.fileExecutor(),
                  context.options().parallelism(),
                  context.options().maxMetadataBytes())
              .verify(
                  key.targetLocation(),
                  Optional.of(new VerifySource(sourceStore, source.location(), head)),
                  line -> {
                    if (first.size() < VerifyReport.PROBLEMS_KEPT) {
                      first.add(line);
                    }
                  });
      VerifyReport report =
          new VerifyReport(context.clock().instant(), result.checked(), result.problems(), first);
      context.board().verified(key, report);
      return report;
    } catch (RuntimeException e) {
      context.board().verifyFailed(key, e);
      throw e;
    }
  }

  /**
   * Promotes the key's replica (failover) as the {@code promote} command does; safe mode first
   * replicates what the rule's source still serves (resolved as {@link TableRunner#replicate}
   * resolves it) and verifies the replica against it. Tells the board the replica is a primary now.
   *
   * @param problems receives each problem the verification of safe mode finds
   * @throws TablePromotionException when the promotion was refused or failed; the replica is left
   *     as it was
   */
  public PromotionResult promote(
      TableKey key, PromotionMode mode, boolean force, Consumer<String> problems) {
    return promote(key, mode, force, problems, OptionalLong.empty());
  }

  /**
   * As above, refused when the replica is no longer at {@code decidedOn}, the replica version the
   * caller saw when it decided.
   */
  public PromotionResult promote(
      TableKey key,
      PromotionMode mode,
      boolean force,
      Consumer<String> problems,
      OptionalLong decidedOn) {
    String table = key.targetLocation();
    Optional<TableContext.ReplicaEntry> entry = context.replicaEntry(key);
    ObjectStore replicaStore = context.stores().targetStore(key.targetLocation());
    TablePromoter promoter =
        new TablePromoter(
            replicaStore,
            context.clock(),
            context.options().maxMetadataBytes(),
            entry.map(TableContext.ReplicaEntry::registrar));
    PromotionResult result;
    if (mode == PromotionMode.SAFE) {
      TableContext.Source source = context.source(key);
      ObjectStore sourceStore = context.stores().sourceStore(source.location());
      TableReplicator replicator =
          TableReplicator.builder(
                  sourceStore,
                  replicaStore,
                  context.fileExecutor(),
                  context.optionsOf(key, source.location()))
              .clock(context.clock())
              .progress(progress -> context.board().progress(key, progress))
              .catalogs(source.catalogs())
              .build();
      TableVerifier verifier =
          new TableVerifier(
              replicaStore,
              context.fileExecutor(),
              context.options().parallelism(),
              context.options().maxMetadataBytes());
      result =
          promoter.promoteSafely(
              table,
              source.location(),
              key.targetLocation(),
              replicator,
              sourceStore,
              verifier,
              force,
              problems,
              decidedOn);
    } else {
      result = promoter.promote(table, key.targetLocation(), mode, decidedOn);
    }
    context.board().promoted(key, result);
    return result;
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

  /**
   * Fails the key's promoted replica back into {@code originalLocation} as the {@code failback}
   * command does: the original becomes a replica of the promoted table, the old source's orphan
   * commits kept under tags named {@code tagPrefix}. Files the rule's target maps outside the
   * replica's folder go back to where the target's map took them from. Tells the board.
   *
   * @throws TableReplicationException when the fail-back was refused or failed; the original is
   *     left as it was
   */
  public FailbackSummary failback(TableKey key, String originalLocation, String tagPrefix) {
    return failback(key, originalLocation, tagPrefix, OptionalLong.empty());
  }

  /** As above, refused when the promoted table is no longer at {@code decidedOnEpoch}. */
  public FailbackSummary failback(
      TableKey key, String originalLocation, String tagPrefix, OptionalLong decidedOnEpoch) {
    String primary = key.targetLocation();
    TableRule rule = context.rules().rule(key.rule());
    Optional<CatalogSpec> originalCatalog = rule.catalog().map(RuleCatalog::spec);
    if (originalCatalog.isPresent() && "rest".equals(originalCatalog.get().type())) {
      throw refusedFailback(
          primary,
          originalLocation,
          "its source is a table of "
              + rule.catalog().get().label()
              + ", a REST catalog whose entry a fail-back cannot move (the failback command with"
              + " --old-source-catalog moves a JDBC or Glue entry)");
    }
    ObjectStore primaryStore = context.stores().targetStore(primary);
    if (new TablePromoter(primaryStore, context.clock(), context.options().maxMetadataBytes())
        .promotion(primary, primary)
        .isEmpty()) {
      throw refusedFailback(
          primary, originalLocation, primary + " is a replica, not promoted: nothing to fail back");
    }
    List<PathMapping.Prefix> maps =
        rule.target(key.target()).map(RuleTarget::map).orElse(List.of());
    List<String> allowed = new ArrayList<>();
    allowed.add(primary);
    maps.forEach(map -> allowed.add(map.target()));
    FailbackSummary summary =
        new TableFailback(
                primaryStore,
                context.stores().sourceStore(originalLocation),
                context.clock(),
                context.fileExecutor(),
                context
                    .options()
                    .forTable(
                        maps.stream()
                            .map(map -> new PathMapping.Prefix(map.target(), map.source()))
                            .toList(),
                        allowed),
                tagPrefix,
                failbackCatalogs(key, originalLocation, originalCatalog))
            .failback(primary, originalLocation, decidedOnEpoch);
    context.board().failedBack(key, FailbackReport.of(context.clock().instant(), summary));
    return summary;
  }

  /**
   * Writers commit to a promoted replica registered in a catalog through its entry, leaving the
   * folder's version hint behind: its head is the entry's file. The original's entry in the rule's
   * source catalog follows each version fail-back publishes, read-only.
   */
  private TableCatalogs failbackCatalogs(
      TableKey key, String originalLocation, Optional<CatalogSpec> originalCatalog) {
    Optional<SourceHeadResolver> primaryHead =
        context
            .replicaEntry(key)
            .map(
                entry ->
                    new CatalogHeadResolver(
                        context.catalogs().get(entry.spec()), entry.spec(), entry.identifier()));
    Optional<ReplicaRegistrar> originalEntry =
        originalCatalog.map(
            spec ->
                CatalogRegistrars.forCatalog(
                    spec,
                    context.catalogs().get(spec),
                    TableIdentifier.of(key.levels().toArray(String[]::new)),
                    context.stores().sourceStore(originalLocation),
                    context.catalogs()));
    return new TableCatalogs(primaryHead, originalEntry);
  }

  private static TableReplicationException refusedFailback(
      String primary, String originalLocation, String reason) {
    return new TableReplicationException(
        primary, TableFailback.refused(primary, originalLocation, reason));
  }
}
