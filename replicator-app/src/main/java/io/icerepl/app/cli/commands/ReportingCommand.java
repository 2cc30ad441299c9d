package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.OutputOptions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * A command that prints one result, a {@link Report}, on stdout as {@link OutputOptions} chooses,
 * with its exit codes and examples under the same headings as every other command's.
 */
@Command(
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    footerHeading = "%nExamples:%n",
    exitCodeListHeading = "%nExit codes:%n")
abstract class ReportingCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin OutputOptions output;

  /** Where the result goes. */
  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Where progress goes, beside the logs. */
  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** Prints {@code report} as this command's result. */
  void print(Report report) {
    report.print(out(), output.json());
  }

  /** A progress bar on stderr when it is a terminal and the user did not ask for quiet. */
  ProgressBar.Drawing progressBar() {
    return ProgressBar.on(output.quiet() ? null : System.console(), err());
  }
}
