package io.icerepl.app.cli;

import io.icerepl.app.cli.commands.BackfillCommand;
import io.icerepl.app.cli.commands.ExpireCommand;
import io.icerepl.app.cli.commands.FailbackCommand;
import io.icerepl.app.cli.commands.PromoteCommand;
import io.icerepl.app.cli.commands.ReplicateCommand;
import io.icerepl.app.cli.commands.Report;
import io.icerepl.app.cli.commands.ServeCommand;
import io.icerepl.app.cli.commands.VerifyCommand;
import io.icerepl.app.cli.options.DurationConverter;
import io.icerepl.app.cli.options.LogOptions;
import io.icerepl.app.cli.options.OutputOptions;
import io.icerepl.app.logging.Redaction;
import io.icerepl.copier.store.IoErrors;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Command line entry point of the service jar: {@code replicate}, {@code backfill}, {@code verify},
 * {@code expire}, {@code promote}, {@code failback} and {@code serve}.
 */
@Command(
    name = "replicator",
    mixinStandardHelpOptions = true,
    versionProvider = BuildVersion.class,
    description = "Keeps read-only replicas of Apache Iceberg tables, with their whole history.",
    subcommands = {
      ReplicateCommand.class,
      ExpireCommand.class,
      BackfillCommand.class,
      VerifyCommand.class,
      PromoteCommand.class,
      FailbackCommand.class,
      ServeCommand.class,
      CommandLine.HelpCommand.class,
      // hidden: bin/replicator generate-completion > replicator.bash, then source it
      picocli.AutoComplete.GenerateCompletion.class
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
    boolean json = Arrays.asList(args).contains(OutputOptions.JSON);
    CommandLine cli = new CommandLine(root);
    withoutOptionsThatDoNotApply(cli);
    CommandLine completion = cli.getSubcommands().get("generate-completion");
    if (completion != null) {
      completion.getCommandSpec().usageMessage().hidden(true);
    }
    // one duration format everywhere: 5s, 500ms, 3m, 90d, as the replicator's settings
    cli.registerConverter(Duration.class, new DurationConverter());
    asParagraphs(cli);
    examplesVerbatim(cli);
    OWN_DESCRIPTIONS.forEach((command, options) -> describe(cli, command, options));
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
    // a bad argument is its error and where to read more, as git or kubectl do: the whole help
    // (over a hundred lines) would scroll the error itself away
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine failed = e.getCommandLine();
          String message = Redaction.apply(parameterMessage(e));
          if (json) {
            printJsonError(failed.getOut(), message, 2);
          }
          PrintWriter errors = failed.getErr();
          errors.println("error: " + message);
          if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            CommandLine.UnmatchedArgumentException.printSuggestions(unmatched, errors);
          }
          errors.println("Run '" + failed.getCommandSpec().qualifiedName() + " --help' for usage.");
          errors.flush();
          return failed.getCommandSpec().exitCodeOnInvalidInput();
        });
    Runnable restoreLogLevel = LogOptions.restorer();
    try {
      return cli.execute(args);
    } finally {
      restoreLogLevel.run();
    }
  }

  /**
   * The shared store options, less those a command never uses: {@code expire} reads no source,
   * {@code verify} takes no lease. Its help then lists only what applies, and giving one is an
   * unknown option.
   */
  private static final Map<String, List<String>> NOT_TAKEN =
      Map.of(
          "expire", List.of("--source-endpoint", "--source-region"),
          "verify", List.of("--lock-prefix"));

  private static void withoutOptionsThatDoNotApply(CommandLine cli) {
    NOT_TAKEN.forEach(
        (command, options) -> {
          CommandLine sub = cli.getSubcommands().get(command);
          if (sub == null) {
            return;
          }
          for (String option : options) {
            CommandLine.Model.OptionSpec spec = sub.getCommandSpec().findOption(option);
            if (spec != null) {
              sub.getCommandSpec().remove(spec);
            }
          }
        });
  }

  /**
   * Shared options whose words fit one command only, described for the others in their own: verify
   * copies nothing, its threads check files.
   */
  private static final Map<String, Map<String, String>> OWN_DESCRIPTIONS =
      Map.of("verify", Map.of("--threads", "Files checked at once."));

  private static void describe(CommandLine cli, String command, Map<String, String> descriptions) {
    CommandLine sub = cli.getSubcommands().get(command);
    if (sub == null) {
      return;
    }
    CommandLine.Model.CommandSpec spec = sub.getCommandSpec();
    descriptions.forEach(
        (name, description) -> {
          CommandLine.Model.OptionSpec shared = spec.findOption(name);
          if (shared != null) {
            // the copy keeps the mixin's binding: the value still lands in the shared field
            spec.remove(shared);
            spec.addOption(
                CommandLine.Model.OptionSpec.builder(shared).description(description).build());
          }
        });
  }

  /**
   * The error of a bad argument. A misspelled option's value is no unknown option of its own:
   * {@code --sourse X} names {@code --sourse} alone.
   */
  private static String parameterMessage(CommandLine.ParameterException e) {
    if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
      List<String> options =
          unmatched.getUnmatched().stream().filter(a -> a.startsWith("-")).toList();
      if (!options.isEmpty()) {
        return (options.size() == 1 ? "Unknown option: " : "Unknown options: ")
            + String.join(", ", options.stream().map(o -> "'" + o + "'").toList());
      }
    }
    return e.getMessage();
  }

  /**
   * Examples are shown as written, one command a line, never wrapped: a URL cut in two cannot be
   * copied. An example too long for 80 columns is continued with a trailing backslash in its
   * source, as a shell reads it.
   */
  private static void examplesVerbatim(CommandLine cli) {
    cli.getHelpSectionMap()
        .put(
            CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER,
            help -> {
              StringBuilder footer = new StringBuilder();
              for (String line : help.commandSpec().usageMessage().footer()) {
                footer.append(String.format(line)).append(System.lineSeparator());
              }
              return footer.toString();
            });
    cli.getSubcommands().values().forEach(ReplicatorCli::examplesVerbatim);
  }

  /**
   * Descriptions written over several source lines read as one paragraph each, wrapped by picocli
   * to the terminal's width; an empty line starts a new paragraph.
   */
  private static void asParagraphs(CommandLine cli) {
    CommandLine.Model.UsageMessageSpec usage = cli.getCommandSpec().usageMessage();
    usage.description(paragraphs(usage.description()));
    cli.getSubcommands().values().forEach(ReplicatorCli::asParagraphs);
  }

  private static String[] paragraphs(String[] lines) {
    List<String> paragraphs = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : lines) {
      if (line.isBlank()) {
        if (current.length() > 0) {
          paragraphs.add(current.toString());
          current.setLength(0);
        }
        paragraphs.add("");
        continue;
      }
      if (current.length() > 0) {
        current.append(' ');
      }
      current.append(line.strip());
    }
    if (current.length() > 0) {
      paragraphs.add(current.toString());
    }
    return paragraphs.toArray(String[]::new);
  }

  private static String messageOf(Exception e) {
    if (e instanceof IOException failed) {
      return IoErrors.describe(failed);
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  private static void printJsonError(PrintWriter out, String message, int exitCode) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", message);
    error.put("exitCode", exitCode);
    out.println(Report.toJson(Map.of("error", error)));
    out.flush();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
