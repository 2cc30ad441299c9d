package io.icerepl.app.cli.options;

import picocli.CommandLine.Option;

/** How many files are copied at once. */
public final class ThreadsOption {
  /**
   * The files copied at once by default, on the command line as in the service's files-per-table.
   */
  public static final int DEFAULT_THREADS = 8;

  @Option(
      names = "--threads",
      paramLabel = "<n>",
      converter = PositiveInt.class,
      description = "Files copied at once.")
  int threads = DEFAULT_THREADS;

  // --parallelism is the name replicate had first; scripts that use it keep working. An option of
  // its own, so an error names the one the user typed.
  @Option(names = "--parallelism", hidden = true, converter = PositiveInt.class)
  void parallelism(int n) {
    threads = n;
  }

  public int threads() {
    return threads;
  }
}
