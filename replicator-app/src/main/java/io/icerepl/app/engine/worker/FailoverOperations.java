package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.CatalogRegistrars;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.FailbackSummary;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TableFailback;
import io.icerepl.app.engine.failover.TablePromoter;
import io.icerepl.app.engine.failover.TablePromotionException;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.path.PathMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table's failover on demand, sharing the lanes' context: its replica promoted to a primary
 * ({@link #promote}), or a promoted replica failed back into its original location ({@link
 * #failback}). Each runs in the table's lane and tells the board.
 */
public final class FailoverOperations {
  private final TableContext context;

  public FailoverOperations(TableContext context) {
    this.context = context;
  }

  /**
   * Promotes the key's replica (failover) as the {@code promote} command does; safe mode first
   * replicates what the rule's source still serves (resolved as {@link TableRunner#replicate}
   * resolves it) and verifies the replica against it. Tells the board the replica is a primary now.
   *
   * @param problems receives each problem the verification of safe mode finds
   * @param decidedOn the replica version the caller saw when it decided, if any: refused when the
   *     replica is no longer at it
   * @throws TablePromotionException when the promotion was refused or failed; the replica is left
   *     as it was
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

  /**
   * Fails the key's promoted replica back into {@code originalLocation} as the {@code failback}
   * command does: the original becomes a replica of the promoted table, the old source's orphan
   * commits kept under tags named {@code tagPrefix}. Files the rule's target maps outside the
   * replica's folder go back to where the target's map took them from. Tells the board.
   *
   * @param decidedOnEpoch the promotion's epoch the caller decided on, if any: refused when the
   *     promoted table is no longer at it
   * @throws TableReplicationException when the fail-back was refused or failed; the original is
   *     left as it was
   */
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
