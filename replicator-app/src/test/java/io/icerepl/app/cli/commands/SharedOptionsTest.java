package io.icerepl.app.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.cli.options.ThreadsOption;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * One name per concept across the commands, each option declared once; the names scripts used
 * before stay as second names and parse to the same value.
 */
class SharedOptionsTest {

  @Test
  void replicateTakesItsParallelismAsThreadsOrUnderItsOldName() {
    ReplicateCommand threads =
        parse("replicate", "--source", "/s", "--target", "/t", "--threads", "3");
    ReplicateCommand parallelism =
        parse("replicate", "--source", "/s", "--target", "/t", "--parallelism", "3");

    assertThat(threads.tuning.threads()).isEqualTo(3);
    assertThat(parallelism.tuning.threads()).isEqualTo(3);
    assertThat(threads.target.target()).isEqualTo("/t");
    assertThat(
            this.<ReplicateCommand>parse("replicate", "--source", "/s", "--target", "/t")
                .tuning
                .threads())
        .isEqualTo(ThreadsOption.DEFAULT_THREADS);
  }

  @Test
  void expireTakesTheMetadataLimitOfReplicate() {
    ExpireCommand expire = parse("expire", "--target", "/t", "--max-metadata-bytes", "1000");
    ReplicateCommand replicate =
        parse("replicate", "--source", "/s", "--target", "/t", "--max-metadata-bytes", "1000");

    assertThat(expire.metadataLimit.maxMetadataBytes()).isEqualTo(1000);
    assertThat(replicate.tuning.maxMetadataBytes()).isEqualTo(1000);
  }

  @Test
  void theHelpShowsEachSharedOptionWithItsDefault() {
    CommandLine cli = new CommandLine(new ReplicatorCli());
    String replicate =
        cli.getSubcommands().get("replicate").getUsageMessage(CommandLine.Help.Ansi.OFF);

    assertThat(replicate)
        .contains("--threads=<n>", "Default: 8", "Default: 256MiB", "Default: us-east-1");
  }

  /** The command the arguments select, with its options parsed. */
  @SuppressWarnings("unchecked")
  private <T> T parse(String... args) {
    CommandLine.ParseResult result = new CommandLine(new ReplicatorCli()).parseArgs(args);
    while (result.hasSubcommand()) {
      result = result.subcommand();
    }
    return (T) result.commandSpec().userObject();
  }
}
