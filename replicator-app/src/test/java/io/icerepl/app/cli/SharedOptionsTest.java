package io.icerepl.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * One name per concept across the commands, each option declared once; the names scripts used
 * before stay as second names and parse to the same value.
 */
class SharedOptionsTest {

  @Test
  void replicateTakesItsParallelismAsThreadsOrUnderItsOldName() {
    ReplicateCommand threads = parse("replicate", "--source", "/s", "--target", "/t", "--threads", "3");
    ReplicateCommand parallelism = parse("replicate", "--source", "/s", "--target", "/t", "--parallelism", "3");

    assertThat(threads.threads.threads()).isEqualTo(3);
    assertThat(parallelism.threads.threads()).isEqualTo(3);
    assertThat(threads.target.target()).isEqualTo("/t");
    assertThat(this.<ReplicateCommand>parse("replicate", "--source", "/s", "--target", "/t").threads.threads())
        .isEqualTo(ThreadsOption.DEFAULT_THREADS);
  }

  @Test
  void theWorkFolderIsWorkDirOnEveryCommandAndDirWhereItWasBefore() {
    assertThat(this.<DemoCommand>parse("demo", "--work-dir", "w").work.dir()).contains(Path.of("w"));
    assertThat(this.<DemoCommand>parse("demo", "--dir", "w").work.dir()).contains(Path.of("w"));
    assertThat(this.<DemoCommand>parse("demo").work.dir()).contains(Path.of("target", "demo"));
    assertThat(this.<BenchmarkCommand.Memory>parse("benchmark", "memory", "--work-dir", "w").work.dir())
        .contains(Path.of("w"));
    assertThat(this.<BenchmarkCommand.Memory>parse("benchmark", "memory", "--dir", "w").work.dir())
        .contains(Path.of("w"));
    assertThat(this.<CampaignCommand.Crash>parse("campaign", "crash", "--work-dir", "w").work.dir())
        .contains(Path.of("w"));
    assertThat(this.<CampaignCommand.Crash>parse("campaign", "crash").work.dir()).isEmpty();
  }

  @Test
  void benchmarksTakeThreadsAndCampaignsASeed() {
    assertThat(this.<BenchmarkCommand.BackfillThroughput>parse("benchmark", "backfill-throughput", "--threads", "5")
        .threads.threads()).isEqualTo(5);
    assertThat(this.<CampaignCommand.Faults>parse("campaign", "faults", "--seed", "7").seed.seed()).isEqualTo(7);
    assertThat(this.<CampaignCommand.Crash>parse("campaign", "crash").seed.seed()).isEqualTo(1);
  }

  @Test
  void expireTakesTheMetadataLimitOfReplicate() {
    ExpireCommand expire = parse("expire", "--target", "/t", "--max-metadata-bytes", "1000");
    ReplicateCommand replicate = parse("replicate", "--source", "/s", "--target", "/t", "--max-metadata-bytes", "1000");

    assertThat(expire.metadataLimit.maxMetadataBytes()).isEqualTo(1000);
    assertThat(replicate.metadataLimit.maxMetadataBytes()).isEqualTo(1000);
  }

  @Test
  void theHelpShowsEachSharedOptionWithItsDefault() {
    CommandLine cli = new CommandLine(new ReplicatorCli());
    String replicate = cli.getSubcommands().get("replicate").getUsageMessage(CommandLine.Help.Ansi.OFF);
    String demo = cli.getSubcommands().get("demo").getUsageMessage(CommandLine.Help.Ansi.OFF);
    String memory =
        cli.getSubcommands().get("benchmark").getSubcommands().get("memory").getUsageMessage(CommandLine.Help.Ansi.OFF);

    assertThat(replicate).contains("--threads, --parallelism=<n>", "Default: 8", "Default: 268435456", "Default: us-east-1");
    assertThat(demo).contains("--dir, --work-dir=<folder>", "Default: target" + java.io.File.separator + "demo");
    assertThat(memory).contains("--dir, --work-dir=<folder>").doesNotContain("null");
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
