package io.icerepl.app.cli.options;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How a command speaks: its result on stdout, as aligned lines or with {@code --json} as one JSON
 * object; its logs and progress on stderr, as {@link LogOptions} chooses.
 */
public final class OutputOptions {
  /** The option's name, which the error handler looks for among the arguments. */
  public static final String JSON = "--json";

  @Option(
      names = JSON,
      description = "Print the result as one JSON object on stdout; an error as {\"error\": ...}.")
  boolean json;

  @Mixin LogOptions log;

  /** Whether the result is printed as JSON. */
  public boolean json() {
    return json;
  }

  /** Whether the user asked for warnings and errors only, and no progress. */
  public boolean quiet() {
    return log.quiet();
  }
}
