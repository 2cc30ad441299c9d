package io.icerepl.app.cli.options;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * How much a command logs, on stderr: {@code --quiet} warnings and errors only, {@code --verbose}
 * the replicator's debug lines too. The environment variable {@code ICEREPL_LOG_LEVEL} sets the
 * replicator's level for every command and the service; libraries log warnings only, whatever is
 * chosen.
 */
public final class LogOptions {
  /** The replicator's own loggers. */
  static final String LOGGERS = "io.icerepl";

  private boolean quiet;
  private Level chosen;

  @Option(
      names = {"-q", "--quiet"},
      description = "Log only warnings and errors on stderr, and draw no progress.")
  void quiet(boolean quiet) {
    if (quiet) {
      this.quiet = true;
      chosen = Level.WARN;
      level(Level.WARN);
    }
  }

  @Option(
      names = {"-v", "--verbose"},
      description = "Log the replicator's debug lines too, on stderr.")
  void verbose(boolean verbose) {
    if (verbose) {
      chosen = Level.DEBUG;
      level(Level.DEBUG);
    }
  }

  /** Whether the user asked for warnings and errors only. */
  public boolean quiet() {
    return quiet;
  }

  /** The level the user chose, if any ({@code WARN} or {@code DEBUG}). */
  public Optional<String> chosenLevel() {
    return Optional.ofNullable(chosen).map(Level::toString);
  }

  private static void level(Level level) {
    if (LoggerFactory.getLogger(LOGGERS) instanceof Logger logback) {
      logback.setLevel(level);
    }
  }

  /** The replicator's level now, to put back after a command run in-process. */
  public static Runnable restorer() {
    if (LoggerFactory.getLogger(LOGGERS) instanceof Logger logback) {
      Level before = logback.getLevel();
      return () -> logback.setLevel(before);
    }
    return () -> {};
  }
}
