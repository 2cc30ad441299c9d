package io.icerepl.app.cli;

import io.icerepl.app.logging.Redaction;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Command line entry point of the service jar: {@code replicate}, {@code backfill}, {@code verify},
 * {@code expire}, {@code promote}, {@code failback} and {@code serve}.
 */
@Command(
    name = "replicator",
    mixinStandardHelpOptions = true,
    version = "iceberg-replicator 0.1.0",
    description = "Keeps read-only replicas of Apache Iceberg tables, with their whole history.",
    subcommands = {
      ReplicateCommand.class,
      ExpireCommand.class,
      BackfillCommand.class,
      VerifyCommand.class,
      PromoteCommand.class,
      FailbackCommand.class,
      ServeCommand.class,
      CommandLine.HelpCommand.class
    })
public final class ReplicatorCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs one command, as {@code main} would, and returns its exit code (0 on success). */
  public static int execute(String... args) {
    return execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
  }

  /** Runs one command with the given output streams. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    return execute(new ReplicatorCli(), out, err, args);
  }

  /**
   * Runs one command of {@code root}, a picocli command, with the exit codes of every command line
   * of the project: 0 on success, 2 for a bad argument, 1 for any other failure, its message on
   * {@code err} as one line (and with {@code --json} also as {@code {"error": ...}} on {@code
   * out}). A log level a command chose is put back afterwards, so commands run in one process do
   * not inherit it.
   */
  public static int execute(Object root, PrintWriter out, PrintWriter err, String... args) {
    boolean json = java.util.Arrays.asList(args).contains(OutputOptions.JSON);
    CommandLine cli = new CommandLine(root);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          int exitCode = e instanceof IllegalArgumentException ? 2 : 1;
          String message = Redaction.apply(messageOf(e));
          if (json) {
            printJsonError(commandLine.getOut(), message, exitCode);
          }
          commandLine.getErr().println("error: " + message);
          return exitCode;
        });
    CommandLine.IParameterExceptionHandler parameters = cli.getParameterExceptionHandler();
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          if (json) {
            printJsonError(e.getCommandLine().getOut(), Redaction.apply(e.getMessage()), 2);
          }
          return parameters.handleParseException(e, arguments);
        });
    Runnable restoreLogLevel = LogOptions.restorer();
    try {
      return cli.execute(args);
    } finally {
      restoreLogLevel.run();
    }
  }

  private static String messageOf(Exception e) {
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  private static void printJsonError(PrintWriter out, String message, int exitCode) {
    java.util.Map<String, Object> error = new java.util.LinkedHashMap<>();
    error.put("message", message);
    error.put("exitCode", exitCode);
    out.println(Report.toJson(java.util.Map.of("error", error)));
    out.flush();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
