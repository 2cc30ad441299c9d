package io.icerepl.app.cli.options;

import picocli.CommandLine.Option;

/** The seed of a command's random choices, so a run can be repeated. */
public final class SeedOption {
  @Option(
      names = "--seed",
      paramLabel = "<n>",
      description = "Seed of the random choices and of the writer.")
  long seed = 1;

  public long seed() {
    return seed;
  }
}
