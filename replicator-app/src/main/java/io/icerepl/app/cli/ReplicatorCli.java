package io.icerepl.app.cli;

/** Command line entry point. */
public final class ReplicatorCli {
  private ReplicatorCli() {}

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs one command, as {@code main} would, and returns its exit code (0 on success). */
  public static int execute(String... args) {
    throw new UnsupportedOperationException("not built yet");
  }
}
