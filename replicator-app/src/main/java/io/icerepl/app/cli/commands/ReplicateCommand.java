package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.BatchOperationsOption;
import io.icerepl.app.cli.options.CatalogTable;
import io.icerepl.app.cli.options.PathMapOption;
import io.icerepl.app.cli.options.SourceOption;
import io.icerepl.app.cli.options.StoreOptions;
import io.icerepl.app.cli.options.TargetCatalogOption;
import io.icerepl.app.cli.options.TargetOption;
import io.icerepl.app.cli.options.TuningOptions;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.batch.BatchJobListener;
import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.batch.BatchOperationsOptions;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.CatalogConfinement;
import io.icerepl.app.engine.catalog.CatalogHeadResolver;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.merge.state.KnownCurrent;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code replicate}: brings a replica up to date with its source, one commit per source version.
 */
@Command(
    name = "replicate",
    header = "Replicates one table to its replica, commit by commit.",
    description = {
      "The first run backfills the replica from the source's current metadata; later runs apply each newer source metadata version, in the source's order, as one replica commit each. With nothing new it writes nothing. The source is a table location, or a catalog's table (--source-catalog, --source-table) whose head is the metadata file its catalog names; --target-catalog registers the replica there after every run."
    },
    footer = {
      "  replicator replicate --source s3://lake/db/t --target s3://dr/db/t",
      "  replicator replicate --source /data/wh/db/t --target /backup/wh/db/t --json"
    },
    exitCodeList = {
      "0:replicated, or nothing new",
      "1:the table could not be replicated; the replica is left as it was",
      "2:a bad argument"
    })
public final class ReplicateCommand extends TableCommand {
  @CommandLine.Mixin SourceOption source;

  @CommandLine.Mixin TargetOption target;

  @CommandLine.Mixin TargetCatalogOption targetCatalog;

  @Option(
      names = "--source-metadata",
      paramLabel = "<file>",
      description =
          "Source metadata file to replicate up to (a path, or a name in the source's"
              + " metadata folder). Default: version-hint.text, else the single newest"
              + " *.metadata.json. Not with --source-catalog: the catalog names the head.")
  String sourceMetadata;

  @CommandLine.Mixin PathMapOption map;

  @Option(
      names = "--allow-source-prefix",
      showDefaultValue = CommandLine.Help.Visibility.NEVER,
      paramLabel = "<prefix>",
      description =
          "With --source-catalog: where the catalog's table may lie (repeatable). Default: the"
              + " catalog's warehouse, so a catalog row naming a table elsewhere is refused.")
  List<String> allowedSourcePrefixes = new ArrayList<>();

  @Option(
      names = "--coalesce",
      description = "Apply only the newest source version instead of each intermediate one.")
  boolean coalesce;

  @CommandLine.Mixin TuningOptions tuning;

  @CommandLine.Mixin BatchOperationsOption batchOperations;

  @Option(
      names = "--dry-run",
      description =
          "Plan and count what a run would do (versions, snapshots, files and bytes to copy, files"
              + " to rewrite) and write nothing: no replica file, no state, no lease.")
  boolean dryRun;

  @Override
  public Integer call() {
    ReplicationOptions options = tuning.replication(map.prefixes(), coalesce);
    Optional<CatalogTable> sourceTable = source.catalogTable();
    if (sourceTable.isPresent() && sourceMetadata != null) {
      throw new IllegalArgumentException(
          "Cannot replicate "
              + sourceTable.get().describe()
              + ": --source-metadata names a file of a source location; a catalog's table is"
              + " replicated up to the metadata file its catalog names");
    }
    Optional<CatalogTable> replicaTable =
        targetCatalog.catalogTable(sourceTable.map(CatalogTable::identifier));
    ExecutorService executor = tuning.newPool();
    try (StoreOptions opened = stores;
        CatalogClients catalogs = new CatalogClients();
        BatchOperations batch =
            batchOperations.open(stores.targetRegion(), BatchOperationsOptions.OFF)) {
      Optional<CatalogHeadResolver> sourceHead =
          sourceTable.map(t -> stores.sourceHead(catalogs, t));
      String sourceLocation =
          sourceHead
              .map(CatalogHeadResolver::tableLocation)
              .orElseGet(() -> source.location().get());
      if (sourceTable.isPresent()) {
        CatalogSpec spec = stores.sourceCatalog(sourceTable.get());
        CatalogConfinement.check(
            sourceTable.get().describe(),
            spec,
            sourceLocation,
            CatalogConfinement.roots(allowedSourcePrefixes, spec, catalogs.get(spec)),
            allowedSourcePrefixes.isEmpty() ? "the catalog's warehouse" : "--allow-source-prefix");
      }
      String targetLocation = target.target();
      Optional<ReplicaRegistrar> registrar =
          replicaTable.map(
              t ->
                  stores.catalogEntry(
                      catalogs, catalogs::registering, t, stores.target(targetLocation)));
      ProgressBar.Drawing progress = progressBar();
      ReplicationSummary summary;
      try {
        TableReplicator replicator =
            TableReplicator.builder(
                    stores.source(sourceLocation), stores.target(targetLocation), executor, options)
                .clock(Clock.systemUTC())
                .progress(progress.listener())
                .catalogs(
                    new TableCatalogs(
                        sourceHead.map(SourceHeadResolver.class::cast),
                        dryRun ? Optional.empty() : registrar))
                .batchPreCopy(dryRun ? Optional.empty() : batch.preCopy(batchLines(progress)))
                // a group's cut is computed from what each run records, with no service too
                .knownCurrent(KnownCurrent.EVERY_RUN)
                .build();
        summary =
            dryRun
                ? replicator.dryRun(
                    sourceLocation, targetLocation, Optional.ofNullable(sourceMetadata))
                : replicator.replicate(
                    sourceLocation, targetLocation, Optional.ofNullable(sourceMetadata));
      } finally {
        progress.clear();
      }
      Report report =
          Report.aligned()
              .put(
                  "source",
                  "source",
                  sourceHead.map(CatalogHeadResolver::describe).orElse(sourceLocation))
              .json("target", targetLocation)
              .json("dryRun", dryRun);
      if (dryRun) {
        report.text("dry run", "nothing written; a run would do:");
      }
      print(describe(report, summary));
      return 0;
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * Where an S3 Batch Operations job stands, on the error stream beside the progress bar: one line
   * each time it changes.
   */
  private BatchJobListener batchLines(ProgressBar.Drawing progress) {
    PrintWriter err = err();
    JobProgress[] last = {null};
    return (table, job) -> {
      if (job.equals(last[0])) {
        return;
      }
      last[0] = job;
      progress.clear();
      err.println(
          "batch job          "
              + job.jobId()
              + " "
              + job.status()
              + ": "
              + job.succeeded()
              + " of "
              + job.total()
              + " tasks succeeded, "
              + job.failed()
              + " failed");
      err.flush();
    };
  }

  /** Prints a run's figures, one per line. */
  public static void print(PrintWriter out, ReplicationSummary summary) {
    describe(Report.aligned(), summary).print(out, false);
  }

  /** A run's figures, added to {@code report}. */
  static Report describe(Report report, ReplicationSummary summary) {
    report
        .put("versionsApplied", "versions applied", summary.versionsApplied())
        .put("snapshotsAdded", "snapshots added", summary.snapshotsAdded())
        .put("filesCopied", "files copied", summary.filesCopied())
        .put("bytesCopied", "bytes copied", summary.bytesCopied())
        .put("filesRewritten", "files rewritten", summary.filesRewritten())
        .list("replicaMetadataFiles")
        .list("skippedVersions")
        .list("mirroredPrefixes")
        .json("lostSnapshots", summary.lostSnapshots());
    summary
        .replicaMetadataFiles()
        .forEach(f -> report.item("replicaMetadataFiles", "replica metadata", f));
    summary.skippedVersions().forEach(f -> report.item("skippedVersions", "skipped version", f));
    summary
        .inferredMirror()
        .forEach(
            p ->
                report.item(
                    "mirroredPrefixes",
                    "mirrored prefix",
                    Map.of("source", p.source(), "target", p.target()),
                    p.source() + " -> " + p.target()));
    if (!summary.lostSnapshots().isEmpty()) {
      report.text("snapshots not kept", String.valueOf(summary.lostSnapshots()));
    }
    return report;
  }
}
