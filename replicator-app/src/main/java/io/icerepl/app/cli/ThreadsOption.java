package io.icerepl.app.cli;

import picocli.CommandLine.Option;

/** How many files are copied at once. */
public final class ThreadsOption {
  /**
   * The files copied at once by default, on the command line as in the service's files-per-table.
   */
  public static final int DEFAULT_THREADS = 8;

  // --parallelism is the name replicate had first; scripts that use it keep working
  @Option(
      names = {"--threads", "--parallelism"},
      paramLabel = "<n>",
      description = "Files copied at once.")
  int threads = DEFAULT_THREADS;

  public int threads() {
    return threads;
  }
}
