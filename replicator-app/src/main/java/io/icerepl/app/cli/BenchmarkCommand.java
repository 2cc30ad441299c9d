package io.icerepl.app.cli;

import io.icerepl.app.bench.IncrementalCostBenchmark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code benchmark}: programs that print figures, each against a baseline measured in the same run. */
@Command(
    name = "benchmark",
    mixinStandardHelpOptions = true,
    description = {
      "Runs a benchmark and prints its figures.",
      "incremental-cost: one new commit on tables with short and long histories; files read,",
      "copied and rewritten per commit, time per commit, and the floor of parsing and writing",
      "that table's metadata JSON once."
    })
final class BenchmarkCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "<name>", description = "Benchmark to run: incremental-cost.")
  String name;

  @Option(names = "--history", split = ",", paramLabel = "<n>",
      description = "Prior snapshots of each table (default: 10,1000,10000).")
  List<Integer> histories = new ArrayList<>(List.of(10, 1000, 10000));

  @Option(names = "--commits", paramLabel = "<n>", description = "Measured commits per table (default: ${DEFAULT-VALUE}).")
  int commits = 7;

  @Option(names = "--dir", paramLabel = "<folder>", description = "Work folder (default: a new temporary folder).")
  Path dir;

  @Override
  public Integer call() throws IOException {
    if (!"incremental-cost".equals(name)) {
      throw new IllegalArgumentException("Cannot run benchmark " + name + ": unknown (known: incremental-cost)");
    }
    Path work = dir != null ? dir : Files.createTempDirectory("incremental-cost");
    new IncrementalCostBenchmark(spec.commandLine().getOut()).run(work, histories, commits);
    return 0;
  }
}
