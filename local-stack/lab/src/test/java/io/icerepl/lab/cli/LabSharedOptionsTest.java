package io.icerepl.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The lab's commands take the service jar's shared options under the same names; the names scripts
 * used before stay as second names and parse to the same value.
 */
class LabSharedOptionsTest {

  @Test
  void theWorkFolderIsWorkDirOnEveryCommandAndDirWhereItWasBefore() {
    assertThat(this.<DemoCommand>parse("demo", "--work-dir", "w").work.dir())
        .contains(Path.of("w"));
    assertThat(this.<DemoCommand>parse("demo", "--dir", "w").work.dir()).contains(Path.of("w"));
    assertThat(this.<DemoCommand>parse("demo").work.dir()).contains(Path.of("target", "demo"));
    assertThat(
            this.<BenchmarkCommand.Memory>parse("benchmark", "memory", "--work-dir", "w")
                .work
                .dir())
        .contains(Path.of("w"));
    assertThat(this.<BenchmarkCommand.Memory>parse("benchmark", "memory", "--dir", "w").work.dir())
        .contains(Path.of("w"));
    assertThat(this.<CampaignCommand.Crash>parse("campaign", "crash", "--work-dir", "w").work.dir())
        .contains(Path.of("w"));
    assertThat(this.<CampaignCommand.Crash>parse("campaign", "crash").work.dir()).isEmpty();
    assertThat(
            this.<CampaignCommand.Failover>parse("campaign", "failover", "--work-dir", "w")
                .work
                .dir())
        .contains(Path.of("w"));
  }

  @Test
  void benchmarksTakeThreadsAndCampaignsASeed() {
    assertThat(
            this.<BenchmarkCommand.BackfillThroughput>parse(
                    "benchmark", "backfill-throughput", "--threads", "5")
                .threads
                .threads())
        .isEqualTo(5);
    assertThat(this.<CampaignCommand.Faults>parse("campaign", "faults", "--seed", "7").seed.seed())
        .isEqualTo(7);
    assertThat(this.<CampaignCommand.Crash>parse("campaign", "crash").seed.seed()).isEqualTo(1);
    assertThat(
            this.<CampaignCommand.Failover>parse("campaign", "failover", "--seed", "7").seed.seed())
        .isEqualTo(7);
  }

  @Test
  void theHelpShowsEachSharedOptionWithItsDefault() {
    CommandLine cli = new CommandLine(new LabCli());
    String demo = cli.getSubcommands().get("demo").getUsageMessage(CommandLine.Help.Ansi.OFF);
    String memory =
        cli.getSubcommands()
            .get("benchmark")
            .getSubcommands()
            .get("memory")
            .getUsageMessage(CommandLine.Help.Ansi.OFF);

    assertThat(demo)
        .contains(
            "--dir, --work-dir=<folder>", "Default: target" + java.io.File.separator + "demo");
    assertThat(memory).contains("--dir, --work-dir=<folder>").doesNotContain("null");
  }

  /** The command the arguments select, with its options parsed. */
  @SuppressWarnings("unchecked")
  private <T> T parse(String... args) {
    CommandLine.ParseResult result = new CommandLine(new LabCli()).parseArgs(args);
    while (result.hasSubcommand()) {
      result = result.subcommand();
    }
    return (T) result.commandSpec().userObject();
  }
}
