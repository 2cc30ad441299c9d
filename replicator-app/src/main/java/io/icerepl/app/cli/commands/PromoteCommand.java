package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.CatalogTable;
import io.icerepl.app.cli.options.DurationConverter;
import io.icerepl.app.cli.options.LocationConverter;
import io.icerepl.app.cli.options.OptionalSourceOption;
import io.icerepl.app.cli.options.StoreOptions;
import io.icerepl.app.cli.options.TargetCatalogOption;
import io.icerepl.app.cli.options.TuningOptions;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.failover.PromotionMode;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.failover.TablePromoter;
import io.icerepl.app.engine.group.ConsistentFailover;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLocation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code promote}: turns a replica into a table writers commit to (failover), fenced. */
@Command(
    name = "promote",
    header = "Promotes a replica to a writable table (failover).",
    description = {
      "Publishes one more version without the read-only marking, with replicator.epoch set and sequence numbers (and v3 row ids) raised past anything the old source may still have committed, and records the promotion in the replica's state: no replicator replicates into it again. --mode safe (the default) first replicates what the source still serves and verifies the replica against it, refusing when verify finds a problem unless --force; --mode now promotes what the replica holds and reports how far behind the source it was known to be. --target-catalog moves the replica's catalog entry to the promoted version, writable. A rerun finishes or reports an earlier promotion."
    },
    footer = {
      "  replicator promote --target s3://dr/db/t --source s3://lake/db/t",
      "  replicator promote --target s3://dr/db/t --mode now --json",
      "  replicator promote --consistent sales --mode now \\",
      "      --target s3://dr/sales/orders --target s3://dr/sales/order_items",
      "  replicator promote --consistent --mode now --dry-run \\",
      "      --target s3://dr/sales/orders --target s3://dr/sales/order_items"
    },
    exitCodeList = {
      "0:promoted, or already promoted",
      "1:refused or failed; the replica is left as it was",
      "2:a bad argument"
    })
public final class PromoteCommand extends TableCommand {
  /** The source: needed by safe mode, reported on (if reachable) by now mode. */
  @CommandLine.Mixin OptionalSourceOption source;

  @Option(
      names = "--target",
      required = true,
      paramLabel = "<location>",
      converter = LocationConverter.class,
      description =
          "Replica table location: an absolute path, a file: URI or s3://bucket/path. With"
              + " --consistent, once per table of the group.")
  List<String> targets;

  @Option(
      names = "--consistent",
      arity = "0..1",
      fallbackValue = "",
      paramLabel = "<group>",
      description =
          "Promote every --target at one cut (--mode now): the newest cut the replicas' own"
              + " records prove (each records since when it is known current; the cut is the"
              + " earliest, less the clock-skew allowance). A cut tag <ref>-<yyyyMMddTHHmmssZ> is"
              + " written on every table first, then each table's main becomes its cut snapshot;"
              + " what was replicated after the cut stays on the branch <cut tag>-replicated. The"
              + " group's name is optional: without it the targets given are the group, or the"
              + " group the replicas record. A rerun completes the same cut.")
  String consistent;

  @Option(
      names = "--dry-run",
      description = "With --consistent: the cut and what each table would lose, writing nothing.")
  boolean dryRun;

  @Option(
      names = "--partial-group",
      description =
          "With --consistent: promote the targets although the replicas record a group some of"
              + " whose tables are not named.")
  boolean partialGroup;

  @Option(
      names = "--clock-skew",
      paramLabel = "<duration>",
      converter = DurationConverter.class,
      description =
          "With --consistent: how far a writer's clock may run behind this one (default: the"
              + " group's as the replicas record it, else 1s).")
  Duration clockSkew;

  @Option(
      names = "--transaction-window",
      paramLabel = "<duration>",
      converter = DurationConverter.class,
      description =
          "With --consistent: read the cut only at a moment no table changed in this window"
              + " before (default: the group's as the replicas record it, else none).")
  Duration transactionWindow;

  /** The replica's catalog entry, moved to the promoted version and left writable. */
  @CommandLine.Mixin TargetCatalogOption targetCatalog;

  @Option(
      names = "--mode",
      paramLabel = "safe|now",
      description =
          "safe: replicate, verify, then promote; now: promote what the replica holds (the source"
              + " is unreachable).")
  String mode = PromotionMode.SAFE.label();

  @Option(
      names = "--force",
      description = "In safe mode, promote even when verify finds problems (they are listed).")
  boolean force;

  @Option(
      names = "--replica-version",
      paramLabel = "N",
      description =
          "Promote only if the replica is still at version N (its v<N>.metadata.json), the one the"
              + " decision was made on; a rerun of that promotion is answered as such.")
  Long replicaVersion;

  @CommandLine.Mixin TuningOptions tuning;

  private OptionalLong decidedOn() {
    return replicaVersion == null ? OptionalLong.empty() : OptionalLong.of(replicaVersion);
  }

  @Override
  public Integer call() {
    PromotionMode promotionMode = PromotionMode.parse(mode);
    if (consistent != null) {
      return promoteGroup(promotionMode);
    }
    if (dryRun || partialGroup || clockSkew != null || transactionWindow != null) {
      throw new IllegalArgumentException(
          "Cannot promote "
              + targets
              + ": --dry-run, --partial-group, --clock-skew and --transaction-window go with"
              + " --consistent");
    }
    if (targets.size() != 1) {
      throw new IllegalArgumentException(
          "Cannot promote "
              + targets
              + ": give one --target, or --consistent <ref> to promote a group's tables at its cut");
    }
    String targetLocation = targets.get(0);
    boolean hasSource = source.location().isPresent() || source.catalogTable().isPresent();
    if (promotionMode == PromotionMode.SAFE && !hasSource) {
      throw new IllegalArgumentException(
          "Cannot promote "
              + targetLocation
              + ": --mode safe replicates and verifies against the source, give --source or"
              + " --source-catalog/--source-table (--mode now promotes without one)");
    }
    Report report = Report.aligned().list("problems");
    ExecutorService pool = tuning.newPool();
    try (StoreOptions opened = stores;
        CatalogClients catalogs = new CatalogClients()) {
      ObjectStore replicaStore = stores.target(targetLocation);
      Optional<CatalogTable> entryTable =
          targetCatalog.catalogTable(source.catalogTable().map(CatalogTable::identifier));
      Optional<ReplicaRegistrar> entry =
          entryTable.map(t -> stores.catalogEntry(catalogs, catalogs::get, t, replicaStore));
      TablePromoter promoter =
          new TablePromoter(replicaStore, Clock.systemUTC(), tuning.maxMetadataBytes(), entry);
      PromotionResult result;
      if (promotionMode == PromotionMode.SAFE) {
        SourceHeadResolver head = sourceHead(catalogs);
        String sourceLocation = sourceLocation(head);
        ObjectStore sourceStore = stores.source(sourceLocation);
        TableReplicator replicator =
            TableReplicator.builder(sourceStore, replicaStore, pool, tuning.replication())
                .clock(Clock.systemUTC())
                .progress(CopyProgress.Listener.NONE)
                .catalogs(new TableCatalogs(Optional.of(head), Optional.empty()))
                .build();
        TableVerifier verifier =
            new TableVerifier(replicaStore, pool, tuning.threads(), tuning.maxMetadataBytes());
        result =
            promoter.promoteSafely(
                targetLocation,
                sourceLocation,
                targetLocation,
                replicator,
                sourceStore,
                verifier,
                force,
                line -> report.item("problems", "problem", line),
                decidedOn());
      } else {
        if (hasSource) {
          reportSource(report, catalogs);
        }
        result = promoter.promote(targetLocation, targetLocation, promotionMode, decidedOn());
      }
      describe(report, targetLocation, result);
      entryTable.ifPresent(t -> report.put("catalogEntry", "catalog entry", t.describe()));
      print(report);
      return 0;
    } finally {
      pool.shutdownNow();
    }
  }

  /** {@code --consistent}: every target at the group's cut. */
  private Integer promoteGroup(PromotionMode promotionMode) {
    if (promotionMode != PromotionMode.NOW && !dryRun) {
      throw new IllegalArgumentException(
          "Cannot promote "
              + targets
              + " at a cut of "
              + consistent
              + ": --consistent promotes what the replicas hold at the newest cut they prove, give"
              + " --mode now (a group's safe mode, which replicates and verifies every table and"
              + " then tags a fresh cut, is the service's: POST /api/groups/<name>/promote?mode=safe)");
    }
    if (source.location().isPresent()
        || source.catalogTable().isPresent()
        || targetCatalog.catalogTable(Optional.empty()).isPresent()) {
      throw new IllegalArgumentException(
          "Cannot promote "
              + targets
              + " at a cut of "
              + consistent
              + ": --consistent takes the replicas' locations only (no source, no catalog entry)");
    }
    // the same table however it is spelled (a trailing slash, file: forms)
    if (targets.stream().map(TableLocation::of).distinct().count() != targets.size()) {
      throw new IllegalArgumentException("Cannot promote " + targets + ": a --target is repeated");
    }
    try (StoreOptions opened = stores) {
      List<ConsistentFailover.Target> members =
          targets.stream()
              .map(location -> new ConsistentFailover.Target(location, stores.target(location)))
              .toList();
      ConsistentFailover failover =
          new ConsistentFailover(Clock.systemUTC(), tuning.maxMetadataBytes());
      ConsistentFailover.Settings settings =
          new ConsistentFailover.Settings(
              Optional.ofNullable(consistent).filter(name -> !name.isBlank()),
              Optional.ofNullable(clockSkew),
              Optional.ofNullable(transactionWindow),
              KEEP_CUT_TAG,
              partialGroup);
      if (dryRun) {
        print(planReport(failover.plan(members, settings)));
        return 0;
      }
      GroupPromotion.Result result = failover.promote(members, settings);
      Report report =
          Report.aligned()
              .put("cutTag", "cut tag", result.cutTag())
              .put("cut", "cut", result.cut().toString())
              .put(
                  "lossWindowSeconds",
                  "loss window",
                  seconds(Duration.between(result.cut(), Instant.now())),
                  lossWindow(seconds(Duration.between(result.cut(), Instant.now()))))
              .list("tables");
      for (GroupPromotion.TableResult table : result.tables()) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("table", table.table());
        item.put("alreadyPromoted", table.result().alreadyPromoted());
        item.put("epoch", table.result().promotion().epoch());
        item.put("replicaMetadataFile", table.result().metadataFile());
        item.put("cutSnapshotId", table.cutSnapshotId());
        item.put("keptAfterCut", table.keptAfterCut());
        item.put("branch", table.branch());
        item.put("newestKeptCommit", text(table.newestKeptCommit()));
        String line =
            mainAt(table.table(), table.cutSnapshotId())
                + afterCut(
                    table.keptAfterCut(), table.newestKeptCommit(), "on branch " + table.branch())
                + (table.result().alreadyPromoted() ? " (already promoted)" : "");
        report.item("tables", "table", item, line);
      }
      print(report);
      return 0;
    }
  }

  /** How long a cut tag stays on a table a failover tagged but did not promote after all. */
  private static final Duration KEEP_CUT_TAG = Duration.ofDays(1);

  /** The loss window as read: what the sources committed after the cut is not on main. */
  private static String lossWindow(double seconds) {
    return String.format(
        Locale.ROOT, "%.1f s: what the sources committed after the cut is not on main", seconds);
  }

  /** A table's line in a group's result begins with where its main is. */
  private static String mainAt(String table, Long cutSnapshotId) {
    return table + ": main at " + cutSnapshotId;
  }

  /** What became of the snapshots replicated after the cut, as a table's line says it. */
  private static String afterCut(int count, Instant newest, String where) {
    return count == 0
        ? ", nothing replicated after the cut"
        : ", " + count + " later snapshot(s) up to " + newest + " " + where;
  }

  /** An instant in the JSON result, null when there is none. */
  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  private static double seconds(Duration duration) {
    return Math.max(0, duration.toMillis()) / 1000.0;
  }

  private static Report planReport(ConsistentFailover.Plan plan) {
    Report report =
        Report.aligned()
            .json("dryRun", true)
            .text("dry run", "nothing written; a consistent promotion now would do:")
            .put("cutTag", "cut tag", plan.cutTag())
            .put("cut", "cut", plan.cut().toString())
            .put("heldBackBy", "held back by", plan.heldBackBy())
            .put(
                "lossWindowSeconds",
                "loss window",
                plan.lossWindowSeconds(),
                lossWindow(plan.lossWindowSeconds()))
            .json("alreadyPromotedAt", plan.alreadyPromotedAt().orElse(null));
    plan.alreadyPromotedAt()
        .ifPresent(cut -> report.text("already promoted at", cut + " (a rerun completes it)"));
    report.list("tables");
    for (ConsistentFailover.TablePlan table : plan.tables()) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("table", table.table());
      item.put("cutSnapshotId", table.cutSnapshotId());
      item.put("knownCurrentFrom", text(table.knownCurrentFrom()));
      item.put("afterCut", table.afterCut());
      item.put("newestAfterCut", text(table.newestAfterCut()));
      String line =
          mainAt(table.table(), table.cutSnapshotId())
              + ", known current from "
              + table.knownCurrentFrom()
              + afterCut(table.afterCut(), table.newestAfterCut(), "would go to a branch");
      report.item("tables", "table", item, line);
    }
    return report;
  }

  /** The source head as {@code replicate} resolves it: a catalog's pointer, else the folder. */
  private SourceHeadResolver sourceHead(CatalogClients catalogs) {
    Optional<CatalogTable> table = source.catalogTable();
    if (table.isPresent()) {
      return stores.sourceHead(catalogs, table.get());
    }
    String location = source.location().orElseThrow();
    return new FileSystemHeadResolver(
        stores.source(location), Clock.systemUTC(), tuning.settleTime());
  }

  private String sourceLocation(SourceHeadResolver head) {
    return head instanceof CatalogHeadResolver catalog
        ? catalog.tableLocation()
        : source.location().orElseThrow();
  }

  /**
   * Now mode: where the source stands, if it answers. Unreachable is what the mode is for, so it is
   * reported and the promotion goes on.
   */
  private void reportSource(Report report, CatalogClients catalogs) {
    try {
      SourceHeadResolver head = sourceHead(catalogs);
      report.put("sourceHead", "source head", head.head(sourceLocation(head)).file());
    } catch (RuntimeException e) {
      report.put("sourceUnreachable", "source unreachable", e.getMessage());
    }
  }

  private static void describe(Report report, String table, PromotionResult result) {
    Promotion promotion = result.promotion();
    TableMetadata metadata = result.metadata();
    report.json("alreadyPromoted", result.alreadyPromoted());
    if (result.alreadyPromoted()) {
      report.text(
          "already promoted at "
              + Instant.ofEpochMilli(promotion.promotedAtMillis())
              + ", epoch "
              + promotion.epoch());
    }
    Optional<String> lastSourceCommit =
        Optional.ofNullable(promotion.lastSourceLastUpdatedMs())
            .map(ms -> Instant.ofEpochMilli(ms).toString());
    report
        .put("table", "table", table)
        .put("epoch", "epoch", promotion.epoch())
        .put("mode", "mode", promotion.mode())
        .put(
            "promotedAt",
            "promoted at",
            Instant.ofEpochMilli(promotion.promotedAtMillis()).toString())
        .put(
            "replicaVersion",
            "replica version",
            promotion.replicaVersion(),
            promotion.replicaVersion() + " " + result.metadataFile())
        .json("replicaMetadataFile", result.metadataFile())
        .put("lastSourceFile", "last source file", promotion.lastSourceMetadataFile())
        .put(
            "lastSourceCommit",
            "last source commit",
            lastSourceCommit.orElse(null),
            lastSourceCommit.orElse("unknown"))
        .put(
            "replicaSnapshots",
            "replica snapshots",
            metadata.snapshots().size(),
            metadata.snapshots().size()
                + ", head "
                + metadata.currentSnapshotId().map(String::valueOf).orElse("none"))
        .json("currentSnapshotId", metadata.currentSnapshotId().orElse(null));
  }
}
