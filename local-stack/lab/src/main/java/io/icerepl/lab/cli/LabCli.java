package io.icerepl.lab.cli;

import io.icerepl.app.cli.BuildVersion;
import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Command line entry point of the lab jar: {@code serve}, {@code demo}, {@code benchmark}, {@code
 * campaign}.
 */
@Command(
    name = "replicator-lab",
    mixinStandardHelpOptions = true,
    versionProvider = LabCli.Version.class,
    description = "Demonstrates, measures and attacks the replicator on an embedded S3 and SQS.",
    subcommands = {
      ServeCommand.class,
      DemoCommand.class,
      OrdersCheckCommand.class,
      BenchmarkCommand.class,
      CampaignCommand.class,
      CommandLine.HelpCommand.class
    })
public final class LabCli implements Runnable {
  /** The build's version, as the service jar's. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"iceberg-replicator-lab " + BuildVersion.version()};
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(
        execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs one command with the given output streams and returns its exit code (0 on success). */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    return ReplicatorCli.execute(new LabCli(), out, err, args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
