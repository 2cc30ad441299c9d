package io.icerepl.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each command's help, rendered as a user sees it on an 80-column terminal: no line is longer, the
 * text is wrapped by the renderer (no line ends while the next word would still have fitted), the
 * command list gives each command a one-line summary, and each command shows examples and its exit
 * codes and only the options that apply to it.
 */
class HelpTest {
  private static final int WIDTH = 80;
  private static final Pattern OPTION_LINE = Pattern.compile("^\\s+(-\\w, )?--?\\w.*");
  private static final List<String> COMMANDS =
      List.of("replicate", "backfill", "verify", "expire", "promote", "failback", "serve");

  private static String help(String... args) {
    StringWriter out = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), args);
    assertThat(exit).isZero();
    return out.toString();
  }

  /** The version printed is the build's, the one the image is tagged with (infra's pom). */
  @Test
  void theVersionIsTheBuildsOwn() throws Exception {
    String pom = java.nio.file.Files.readString(java.nio.file.Path.of("pom.xml"));
    java.util.regex.Matcher parent =
        Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
    assertThat(parent.find()).isTrue();

    assertThat(help("--version")).isEqualTo("iceberg-replicator " + parent.group(1) + "\n");
  }

  @Test
  void theCommandListGivesEachCommandOneLine() {
    List<String> lines = help("--help").lines().toList();
    int commands = lines.indexOf("Commands:");
    assertThat(commands).isPositive();
    List<String> listed = lines.subList(commands + 1, lines.size());
    assertThat(listed).allMatch(l -> l.length() <= WIDTH, "fits " + WIDTH + " columns");
    assertThat(listed)
        .as("a continuation line in the command list")
        .noneMatch(l -> l.startsWith("    "));
    for (String command : COMMANDS) {
      assertThat(listed).as(command).anyMatch(l -> l.matches("  " + command + " +[A-Z].*\\.$"));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"replicate", "backfill", "verify", "expire", "promote", "failback", "serve"})
  void eachCommandsHelpFitsEightyColumnsWrappedByTheRenderer(String command) {
    String help = help(command, "--help");
    List<String> lines = help.lines().toList();

    assertThat(lines)
        .as("lines of %s --help longer than %d columns", command, WIDTH)
        .filteredOn(l -> l.length() > WIDTH)
        .isEmpty();
    assertThat(help).contains("Examples:", "Exit codes:", "  0 ", "  1 ");
    assertThat(help).doesNotContain("Default: []", "PT", "--config, else");

    int usage = indexOf(lines, 0, l -> l.startsWith("Usage:"));
    int description = indexOf(lines, usage + 1, l -> !l.startsWith(" "));
    int options = indexOf(lines, description, l -> OPTION_LINE.matcher(l).matches());
    assertThat(ragged(lines.subList(description, options)))
        .as("%s: description", command)
        .isEmpty();
    // options are wrapped in their column by the renderer: none is hard-wrapped in the source
    picocli.CommandLine.Model.CommandSpec spec =
        new picocli.CommandLine(new ReplicatorCli()).getSubcommands().get(command).getCommandSpec();
    for (picocli.CommandLine.Model.OptionSpec option : spec.options()) {
      assertThat(option.description())
          .as("%s %s: one paragraph", command, option.longestName())
          .hasSizeLessThanOrEqualTo(1)
          .allMatch(d -> !d.contains("\n"));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"replicate", "backfill", "verify", "expire", "promote", "failback", "serve"})
  void examplesAreShownVerbatimNeverWrapped(String command) {
    List<String> lines = help(command, "--help").lines().toList();
    int examples = lines.indexOf("Examples:");
    assertThat(examples).isPositive();
    // the last section: exit codes come before it
    List<String> shown = lines.subList(examples + 1, lines.size());

    picocli.CommandLine.Model.CommandSpec spec =
        new picocli.CommandLine(new ReplicatorCli()).getSubcommands().get(command).getCommandSpec();
    assertThat(shown).as(command).containsSubsequence(spec.usageMessage().footer());
    for (String line : shown) {
      for (String word : line.strip().split("\\s+")) {
        if (word.contains("s3:") || word.startsWith("//")) {
          assertThat(word).as("%s: a whole URL in %s", command, line).matches("s3://\\w.*/.+");
        }
      }
    }
  }

  @Test
  void verifysThreadsSayWhatVerifyDoesWithThem() {
    String threads =
        help("verify", "--help")
            .lines()
            .dropWhile(l -> !l.strip().startsWith("--threads"))
            .findFirst()
            .orElseThrow();
    assertThat(threads).contains("checked at once").doesNotContain("copied");
    assertThat(help("replicate", "--help")).contains("Files copied at once.");
  }

  @Test
  void onlyTheOptionsThatApplyAreListed() {
    assertThat(help("expire", "--help")).doesNotContain("--source-endpoint", "--source-region");
    assertThat(help("verify", "--help")).doesNotContain("--lock-prefix");
    assertThat(help("replicate", "--help")).contains("--lock-prefix", "--source-endpoint");
  }

  @Test
  void sizesAreShownWithTheirUnit() {
    assertThat(help("verify", "--help")).contains("Default: 256MiB");
  }

  /**
   * Lines a renderer would not have ended there: followed by more of the same text whose first word
   * would still have fitted. Option lines, {@code Default:} lines and blank lines start text of
   * their own.
   */
  private static List<String> ragged(List<String> lines) {
    List<String> ragged = new ArrayList<>();
    for (int i = 0; i + 1 < lines.size(); i++) {
      String line = lines.get(i);
      String next = lines.get(i + 1);
      String nextText = next.strip();
      if (line.isBlank()
          || nextText.isEmpty()
          || OPTION_LINE.matcher(next).matches()
          || nextText.startsWith("Default:")) {
        continue;
      }
      String firstWord = nextText.split("\\s+")[0];
      // the renderer keeps a paragraph's lines under the width, one column short of it
      if (line.length() + 1 + firstWord.length() < WIDTH) {
        ragged.add(line + "⏎" + next);
      }
    }
    return ragged;
  }

  private static int indexOf(
      List<String> lines, int from, java.util.function.Predicate<String> test) {
    for (int i = from; i < lines.size(); i++) {
      if (test.test(lines.get(i))) {
        return i;
      }
    }
    throw new AssertionError("no such line after " + from + " in\n" + String.join("\n", lines));
  }
}
