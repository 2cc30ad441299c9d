package io.icerepl.app.cli;

import io.icerepl.app.logging.Redaction;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Command line entry point of the service jar: {@code replicate}, {@code expire}, {@code verify},
 * {@code serve}.
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
   * {@code err}.
   */
  public static int execute(Object root, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(root);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("error: " + Redaction.apply(e.getMessage()));
          return e instanceof IllegalArgumentException ? 2 : 1;
        });
    return cli.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
