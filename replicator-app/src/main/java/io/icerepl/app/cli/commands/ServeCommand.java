package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.LogOptions;
import io.icerepl.app.service.ReplicatorApplication;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code serve}: runs the replication service until it is stopped. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    header = "Runs the replication service until it is stopped.",
    description = {
      "Reconciliation, SQS event intake, the retention schedule, the status API, metrics and health. Every other argument is a Spring property as --name=value, e.g. --spring.config.additional-location=file:replicator.yml or --server.port=8081."
    },
    footerHeading = "%nExamples:%n",
    footer = {"  replicator serve --spring.config.additional-location=file:replicator.yml"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped",
      "1:the service could not start",
      "2:a bad argument or configuration (the key and what is wrong)"
    })
public final class ServeCommand implements Callable<Integer> {

  /** A Spring property on the command line: {@code --name=value}, the name in relaxed form. */
  private static final Pattern SPRING_PROPERTY =
      Pattern.compile("--[A-Za-z0-9][A-Za-z0-9._\\[\\]-]*=.*");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  @CommandLine.Mixin LogOptions log;

  // The command line reflects on every command's methods at start-up: none of them names a Spring
  // type, so replicate, expire and the others load no Spring class.
  @Override
  public Integer call() throws Exception {
    refuseUnknownOptions(springArgs);
    List<String> args = new ArrayList<>(springArgs);
    // Spring sets the log levels up again as it starts: the chosen one goes in as its property
    log.chosenLevel().ifPresent(level -> args.add(0, "--logging.level.io.icerepl=" + level));
    return ReplicatorApplication.serve(args);
  }

  /**
   * Spring would take {@code --local} as a property nobody reads and start a plain service: every
   * argument that is not {@code --name=value} is refused instead, before anything starts.
   */
  private void refuseUnknownOptions(List<String> args) {
    for (String arg : args) {
      if (!SPRING_PROPERTY.matcher(arg).matches()) {
        String hint =
            arg.equals("--local")
                ? " (the embedded demo, serve --local, is in the lab jar: local-stack/lab)"
                : "";
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "Unknown option '"
                + arg
                + "' for serve: other arguments are Spring properties, written --name=value"
                + hint);
      }
    }
  }
}
