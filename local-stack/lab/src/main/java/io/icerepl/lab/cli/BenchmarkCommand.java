package io.icerepl.lab.cli;

import io.icerepl.app.cli.options.ThreadsOption;
import io.icerepl.app.cli.options.WorkDirOption;
import io.icerepl.lab.bench.BackfillThroughputBenchmark;
import io.icerepl.lab.bench.BenchTarget;
import io.icerepl.lab.bench.BigMetadataBenchmark;
import io.icerepl.lab.bench.FleetBenchmark;
import io.icerepl.lab.bench.IncrementalCostBenchmark;
import io.icerepl.lab.bench.LagBenchmark;
import io.icerepl.lab.bench.MemoryBenchmark;
import io.icerepl.lab.bench.QuietMomentBenchmark;
import io.icerepl.lab.bench.ReconcileBenchmark;
import io.icerepl.lab.bench.StartupBenchmark;
import io.icerepl.lab.campaign.ServiceJar;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code benchmark}: programs that print figures, each against a baseline measured in the same run.
 */
@Command(
    name = "benchmark",
    mixinStandardHelpOptions = true,
    description =
        "Runs a benchmark and prints its figures, each against a baseline measured in the same run.",
    subcommands = {
      BenchmarkCommand.IncrementalCost.class,
      BenchmarkCommand.BackfillThroughput.class,
      BenchmarkCommand.Lag.class,
      BenchmarkCommand.Fleet.class,
      BenchmarkCommand.Memory.class,
      BenchmarkCommand.Reconcile.class,
      BenchmarkCommand.Startup.class,
      BenchmarkCommand.BigMetadata.class,
      BenchmarkCommand.TransactionWindow.class,
    })
final class BenchmarkCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "Missing benchmark: " + String.join(", ", spec.subcommands().keySet()));
  }

  /** A target named on the command line, or a usage error naming the choices. */
  static BenchTarget.Kind targetKind(CommandLine.Model.CommandSpec spec, String name) {
    try {
      return BenchTarget.Kind.parse(name);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Command(
      name = "incremental-cost",
      mixinStandardHelpOptions = true,
      description = {
        "One new commit on tables with short and long histories; files read, copied and rewritten",
        "per commit, time per commit, and the floor of parsing and writing that table's metadata",
        "JSON once."
      })
  static final class IncrementalCost implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--history",
        split = ",",
        paramLabel = "<n>",
        description = "Prior snapshots of each table (default: 10,1000,10000).")
    List<Integer> histories = new ArrayList<>(List.of(10, 1000, 10000));

    @Option(
        names = "--commits",
        paramLabel = "<n>",
        description = "Measured commits per table (default: ${DEFAULT-VALUE}).")
    int commits = 7;

    @Option(
        names = "--targets",
        split = ",",
        paramLabel = "<store>",
        description = {
          "Instead: one local table replicated to each of these stores (local, s3, azure, gcs:",
          "local files, the embedded S3, Azurite, the in-process GCS fake); requests by kind",
          "on each target per replicated commit."
        })
    List<String> targets = new ArrayList<>();

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      IncrementalCostBenchmark benchmark =
          new IncrementalCostBenchmark(spec.commandLine().getOut());
      if (!targets.isEmpty()) {
        benchmark.runAcrossStores(
            work.resolve("incremental-cost-stores"),
            targets.stream().map(t -> targetKind(spec, t)).toList(),
            commits);
        return 0;
      }
      benchmark.run(work.resolve("incremental-cost"), histories, commits);
      return 0;
    }
  }

  @Command(
      name = "backfill-throughput",
      mixinStandardHelpOptions = true,
      description = {
        "A new table's first replication on the embedded S3 (on disk, server-side copies) against",
        "a raw parallel CopyObject of the same objects with the same concurrency; medians of",
        "alternating runs. With --target azure the replicas go to abfss:// on Azurite, the bytes",
        "streamed, against a raw parallel GetObject piped into a BlobClient upload."
      })
  static final class BackfillThroughput implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--files",
        paramLabel = "<n>",
        description = "Data files (default: ${DEFAULT-VALUE}).")
    int files = 2000;

    @Option(
        names = "--total-mib",
        paramLabel = "<MiB>",
        description = "Their total size (default: ${DEFAULT-VALUE}).")
    int totalMiB = 1024;

    @CommandLine.Mixin ThreadsOption threads;

    @Option(
        names = "--rounds",
        paramLabel = "<n>",
        description = "Raw/replicator alternations (default: ${DEFAULT-VALUE}).")
    int rounds = 2;

    @Option(
        names = "--scenario",
        paramLabel = "<name>",
        description = {
          "large: --files data files of --total-mib in total; small-files: --small-files of",
          "4 KiB each, where the cost per request dominates; all: both, one ratio line each",
          "(default: ${DEFAULT-VALUE})."
        })
    String scenario = "large";

    @Option(
        names = "--target",
        paramLabel = "s3|azure",
        description = {
          "Where the replicas go: the same embedded S3 (server-side copies), or Azurite",
          "(abfss://, the bytes streamed through the replicator) (default: ${DEFAULT-VALUE})."
        })
    String target = "s3";

    @Option(
        names = "--small-files",
        paramLabel = "<n>",
        description = "Data files of the small-files scenario (default: ${DEFAULT-VALUE}).")
    int smallFiles = 100_000;

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      if (!List.of("large", "small-files", "all").contains(scenario)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "Cannot run scenario " + scenario + ": it is one of large, small-files, all");
      }
      BenchTarget.Kind kind = targetKind(spec, target);
      if (kind != BenchTarget.Kind.S3 && kind != BenchTarget.Kind.AZURE) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "Cannot backfill into " + target + ": --target is s3 or azure");
      }
      BackfillThroughputBenchmark benchmark =
          new BackfillThroughputBenchmark(spec.commandLine().getOut());
      if (!scenario.equals("small-files")) {
        benchmark.run(
            work.resolvePart("backfill-throughput"),
            files,
            totalMiB,
            threads.threads(),
            rounds,
            kind);
      }
      if (!scenario.equals("large")) {
        int totalKiB = smallFiles * 4;
        benchmark.run(
            work.resolvePart("backfill-throughput-small-files"),
            smallFiles,
            Math.max(1, totalKiB / 1024),
            threads.threads(),
            rounds,
            kind);
      }
      return 0;
    }
  }

  @Command(
      name = "lag",
      mixinStandardHelpOptions = true,
      description = {
        "The service in-process on the embedded S3 and SQS; a writer commits small appends and",
        "publishes their S3 events; lag from each commit to the replica showing it (p50/p90/p99/max)",
        "against the writer's own commit time."
      })
  static final class Lag implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--commits",
        paramLabel = "<n>",
        description = "Measured commits (default: ${DEFAULT-VALUE}).")
    int commits = 200;

    @Option(
        names = "--warm-up-commits",
        paramLabel = "<n>",
        description =
            "Commits made and replicated first, not measured: the service's JVM warms up (default:"
                + " ${DEFAULT-VALUE}).")
    int warmUpCommits = 20;

    @Option(
        names = "--interval-ms",
        paramLabel = "<ms>",
        description =
            "Pause between the writer's commits; 0 commits back to back (default: ${DEFAULT-VALUE}).")
    int intervalMs = 100;

    @Option(
        names = "--poll-ms",
        paramLabel = "<ms>",
        description = "Replica poll interval (default: ${DEFAULT-VALUE}).")
    int pollMs = 20;

    @Option(
        names = "--head",
        paramLabel = "catalog|folder",
        description = {
          "Where the service reads the source head: the JDBC catalog the writer commits through, or",
          "the table's folder, where each new <N>-<uuid>.metadata.json waits out the settle time",
          "(default: ${DEFAULT-VALUE})."
        })
    String head = "catalog";

    @Override
    public Integer call() throws Exception {
      LagBenchmark.HeadSource source =
          switch (head) {
            case "catalog" -> LagBenchmark.HeadSource.CATALOG;
            case "folder" -> LagBenchmark.HeadSource.FOLDER;
            default ->
                throw new CommandLine.ParameterException(
                    spec.commandLine(), "--head must be catalog or folder, not " + head);
          };
      new LagBenchmark(spec.commandLine().getOut())
          .run(commits, warmUpCommits, intervalMs, pollMs, source);
      return 0;
    }
  }

  @Command(
      name = "fleet",
      mixinStandardHelpOptions = true,
      description = {
        "Many tables committing at once, replicated by 1, 2, 4... service processes sharing one",
        "queue (the service jar, on the embedded S3 and SQS): commits replicated per second, lag",
        "p50/p99 against the writer's commit, backlog, CPU per process and per commit, lease",
        "takeovers, and each table's commits checked on the replica: exactly once, in order."
      })
  static final class Fleet implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--tables",
        paramLabel = "<n>",
        description = "Tables committing (default: ${DEFAULT-VALUE}).")
    int tables = 100;

    @Option(
        names = "--interval-ms",
        paramLabel = "<ms>",
        description = "Time between two commits of one table (default: ${DEFAULT-VALUE}).")
    int intervalMs = 20_000;

    @Option(
        names = "--warm-up-seconds",
        paramLabel = "<s>",
        description = "Commits made first, not measured (default: ${DEFAULT-VALUE}).")
    int warmUpSeconds = 20;

    @Option(
        names = "--seconds",
        paramLabel = "<s>",
        description = "The measured window (default: ${DEFAULT-VALUE}).")
    int seconds = 60;

    @Option(
        names = "--instances",
        split = ",",
        paramLabel = "<n>",
        description = "Service process counts, comma-separated (default: 1,2,4).")
    List<Integer> instances = new ArrayList<>(List.of(1, 2, 4));

    @Option(
        names = "--rounds",
        paramLabel = "<n>",
        description = "Rounds of every instance count, interleaved (default: ${DEFAULT-VALUE}).")
    int rounds = 3;

    @Option(
        names = "--writers",
        paramLabel = "<n>",
        description = "Writer threads committing (default: ${DEFAULT-VALUE}).")
    int writers = 2;

    @Option(
        names = "--poll-ms",
        paramLabel = "<ms>",
        description = "Replica poll interval (default: ${DEFAULT-VALUE}).")
    int pollMs = 20;

    @Option(
        names = "--jar",
        paramLabel = "<file>",
        description = {
          "The service jar (default: the extracted one under replicator-app/target/cds, as",
          "bin/replicator starts it, else replicator-app/target/replicator-app.jar)."
        })
    Path jar;

    @Option(
        names = "--jvm-option",
        paramLabel = "<option>",
        description = "A JVM option of the service processes (default: -Xmx512m -XX:+UseSerialGC).")
    List<String> jvmOptions = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      Path serviceJar = jar != null ? jar : ServiceJar.defaultJar();
      if (!java.nio.file.Files.isRegularFile(serviceJar)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "Cannot run the fleet benchmark: no service jar at "
                + serviceJar.toAbsolutePath()
                + " (build it with mvn package, or give it with --jar)");
      }
      if (tables < 1 || intervalMs < 1 || seconds < 1 || rounds < 1 || writers < 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--tables, --interval-ms, --seconds, --rounds and --writers must be positive");
      }
      List<String> options =
          jvmOptions.isEmpty() ? List.of("-Xmx512m", "-XX:+UseSerialGC") : jvmOptions;
      boolean ok =
          new FleetBenchmark(spec.commandLine().getOut())
              .run(
                  new FleetBenchmark.Settings(
                      serviceJar,
                      options,
                      tables,
                      intervalMs,
                      warmUpSeconds,
                      seconds,
                      instances,
                      rounds,
                      writers,
                      pollMs));
      return ok ? 0 : 1;
    }
  }

  @Command(
      name = "memory",
      mixinStandardHelpOptions = true,
      description = {
        "Peak heap of replicating a table with many data files in many manifests (local files,",
        "empty placeholder data files, to each --targets store) against parsing its metadata JSON",
        "and manifest list. Under a fixed heap: java -Xmx1g -jar replicator-lab.jar benchmark memory"
      })
  static final class Memory implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--files",
        paramLabel = "<n>",
        description = "Data files (default: ${DEFAULT-VALUE}).")
    int files = 100_000;

    @Option(
        names = "--manifests",
        paramLabel = "<n>",
        description = "Manifests they are in (default: ${DEFAULT-VALUE}).")
    int manifests = 1_000;

    @Option(
        names = "--targets",
        split = ",",
        paramLabel = "<store>",
        description = {
          "Stores replicated to, one after the other, each measured: local, s3, azure (Azurite),",
          "gcs (in-process fake, in this heap) (default: local)."
        })
    List<String> targets = new ArrayList<>(List.of("local"));

    @CommandLine.Mixin ThreadsOption threads;

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      new MemoryBenchmark(spec.commandLine().getOut())
          .run(
              work.resolve("memory"),
              files,
              manifests,
              threads.threads(),
              targets.stream().map(t -> targetKind(spec, t)).toList());
      return 0;
    }
  }

  @Command(
      name = "reconcile",
      mixinStandardHelpOptions = true,
      description = {
        "Reconciliation passes over many unchanged replicated tables under one rule (local files):",
        "requests by kind (LIST, GET, HEAD, PUT, lease) and time per pass, against the pass that",
        "triggers every table; then a simulated day of the adaptive schedule: requests per day",
        "against every table listed every pass, and how many passes lost events took to replicate."
      })
  static final class Reconcile implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--tables",
        paramLabel = "<n>",
        description = "Tables under the rule (default: ${DEFAULT-VALUE}).")
    int tables = 10_000;

    @Option(
        names = "--passes",
        paramLabel = "<n>",
        description = "Unchanged and baseline passes, alternating (default: ${DEFAULT-VALUE}).")
    int passes = 3;

    @Option(
        names = "--lanes",
        paramLabel = "<n>",
        description =
            "Tables replicated at once, as concurrency.tables (default: ${DEFAULT-VALUE}).")
    int lanes = 4;

    @Option(
        names = "--day",
        paramLabel = "<passes>",
        description =
            "Then passes of the default adaptive schedule, a simulated minute apart, with lost"
                + " events; 1440 is a day, 0 none (default: ${DEFAULT-VALUE}).")
    int day = 1440;

    @Option(
        names = "--lost-events",
        paramLabel = "<n>",
        description =
            "Commits during those passes whose event is lost (default: ${DEFAULT-VALUE}).")
    int lostEvents = 50;

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      new ReconcileBenchmark(spec.commandLine().getOut())
          .run(work.resolve("reconcile"), tables, passes, lanes, day, lostEvents);
      return 0;
    }
  }

  @Command(
      name = "startup",
      mixinStandardHelpOptions = true,
      description = {
        "One-shot commands of the service jar as processes of their own: --help, a first replicate",
        "of a small local table and a replicate of it up to date; the jar as it ships, extracted, and",
        "extracted with the class-data-sharing archive mvn package records; java -version as the",
        "floor. Then serve over the table's folder until its health answers UP, as the jar ships and",
        "as bin/replicator starts it. Medians and spread over the rounds."
      })
  static final class Startup implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--jar",
        paramLabel = "<file>",
        description = "The service jar (default: ${DEFAULT-VALUE}).")
    Path jar = Path.of("replicator-app", "target", "replicator-app.jar");

    @Option(
        names = "--cds",
        paramLabel = "<folder>",
        description =
            "Where mvn package extracts it with its archives (default: ${DEFAULT-VALUE}).")
    Path cds = Path.of("replicator-app", "target", "cds");

    @Option(
        names = "--rounds",
        paramLabel = "<n>",
        description = "Rounds of every command (default: ${DEFAULT-VALUE}).")
    int rounds = 5;

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      if (!java.nio.file.Files.isRegularFile(jar)) {
        throw new IllegalArgumentException(
            "Cannot run the startup benchmark: no service jar at "
                + jar.toAbsolutePath()
                + " (build it with mvn package, or give it with --jar)");
      }
      new StartupBenchmark(spec.commandLine().getOut())
          .run(work.resolve("startup"), jar, cds, rounds);
      return 0;
    }
  }

  @Command(
      name = "big-metadata",
      mixinStandardHelpOptions = true,
      description = {
        "Backfill of a table whose metadata file is huge (a long synthetic history written in",
        "front of a real snapshot, streamed): peak heap and time against a plain Jackson readTree",
        "of the same file. Run it under the heap its target allows (3 x size + 32 MiB):",
        "java -Xmx800m -jar replicator-lab.jar benchmark big-metadata --size 256"
      })
  static final class BigMetadata implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--size",
        paramLabel = "<MiB>",
        description = "Size of the source metadata file (default: ${DEFAULT-VALUE}).")
    long sizeMiB = 1024;

    @CommandLine.Mixin WorkDirOption work;

    @Override
    public Integer call() throws Exception {
      new BigMetadataBenchmark(spec.commandLine().getOut())
          .run(work.resolve("big-metadata"), sizeMiB * 1024 * 1024);
      return 0;
    }
  }

  @Command(
      name = "transaction-window",
      mixinStandardHelpOptions = true,
      description = {
        "A group's transaction-window search over two tables committing every 0.5 s with a 1 s",
        "window (no quiet moment: the whole history is searched), by history size, against the",
        "search as it was (every step rescanning the history); median and range of the rounds."
      })
  static final class TransactionWindow implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--snapshots",
        split = ",",
        paramLabel = "<n>",
        description = "Snapshots of both tables together (default: 2000,8000,20000).")
    List<Integer> sizes = new ArrayList<>(List.of(2000, 8000, 20000));

    @Option(
        names = "--rounds",
        paramLabel = "<n>",
        description = "Timed rounds per size (default: ${DEFAULT-VALUE}).")
    int rounds = 5;

    @Override
    public Integer call() {
      new QuietMomentBenchmark(spec.commandLine().getOut()).run(sizes, rounds);
      return 0;
    }
  }
}
