package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.BatchOperationsOption;
import io.icerepl.app.cli.options.ThreadsOption;
import io.icerepl.app.engine.backfill.Backfill;
import io.icerepl.app.engine.backfill.TableOutcome;
import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.app.service.config.ConfigurationFile;
import io.icerepl.app.service.config.EngineSettings;
import io.icerepl.app.service.s3.S3Stores;
import io.icerepl.copier.s3.S3Resilience;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code backfill}: replicates every table of every rule once, as a batch job. */
@Command(
    name = "backfill",
    header = "Replicates every table of the service's rules once, then exits.",
    description = {
      "Each table under each rule of the service's configuration (replicator.rules) goes to each of its targets, under the lease the service takes, so a running service and a backfill never write one replica at once. Progress goes to stderr, a line per finished table; the result is a row per table. Safe to rerun: a rerun continues where a stopped run left off and reports replicas already up to date as such."
    },
    footer = {"  replicator backfill --config replicator.yml --tables-in-parallel 8"},
    exitCodeList = {
      "0:every table replicated or up to date",
      "1:at least one table failed (the others went on)",
      "2:a bad argument or configuration"
    })
public final class BackfillCommand extends ReportingCommand {
  @Option(
      names = "--config",
      required = true,
      paramLabel = "<file>",
      description =
          "The service's configuration (.yml, .yaml or .properties): its replicator.rules and"
              + " replicator.s3.")
  Path config;

  @Option(
      names = "--tables-in-parallel",
      paramLabel = "<n>",
      description = "Tables replicated at once; their file copies share the --threads.")
  int tablesInParallel = 4;

  @CommandLine.Mixin ThreadsOption threads;

  @CommandLine.Mixin BatchOperationsOption batchOperations;

  @Override
  public Integer call() throws InterruptedException {
    if (tablesInParallel < 1) {
      throw new IllegalArgumentException(
          "Cannot backfill: --tables-in-parallel must be at least 1, got " + tablesInParallel);
    }
    ConfigurationFile settings = ConfigurationFile.read(config);
    ExecutorService files = Executors.newFixedThreadPool(threads.threads());
    try (SchemeStores stores =
            S3Stores.stores(
                settings.s3(),
                settings.azure(),
                settings.gcs(),
                new S3Resilience(S3Stores.resilience(settings.s3())),
                Clock.systemUTC(),
                List.of());
        CatalogClients catalogs = new CatalogClients();
        BatchOperations batch =
            batchOperations.open(
                settings.s3().target().region(),
                EngineSettings.batchOperations(settings.replicator()))) {
      Backfill backfill =
          new Backfill(
              EngineSettings.tableRules(settings.replicator(), Optional.of(settings.s3())),
              stores,
              Clock.systemUTC(),
              files,
              EngineSettings.replication(settings.replicator()),
              catalogs,
              tablesInParallel,
              batch);
      // progress on stderr, beside the logs; the result on stdout
      PrintWriter progress = output.quiet() ? new PrintWriter(Writer.nullWriter()) : err();
      List<TableOutcome> outcomes = backfill.run(new BackfillLines(progress));
      print(BackfillLines.summary(outcomes));
      return outcomes.stream().anyMatch(TableOutcome::failed) ? 1 : 0;
    } finally {
      files.shutdownNow();
    }
  }
}
