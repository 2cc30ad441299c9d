package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failover drill's check on real tables: a fail-back left out loses the promoted table's commit
 * and leaves the old source's unreplicated commit under no tag, and the verdict fails; the
 * fail-back run makes the same check pass.
 */
class FailoverCheckTest {
  @TempDir Path dir;

  @Test
  void theCheckCountsCommitsLostWithoutAFailbackAndNoneAfterIt() throws Exception {
    String original = FailoverCampaign.location(dir.resolve("original"));
    String promoted = FailoverCampaign.location(dir.resolve("promoted"));
    try (CampaignSource source = CampaignSource.hadoopTable(original, 1)) {
      source.commit();
      source.commit();
      source.commit();
      assertThat(cli("replicate", "--source", original, "--target", promoted)).startsWith("0");
      source.commitRows();
      assertThat(cli("promote", "--target", promoted, "--mode", "now")).startsWith("0");
      Map<Long, List<String>> promotedRows;
      try (CampaignSource writer = CampaignSource.existingHadoopTable(promoted, 1_000_000, 2)) {
        writer.commitRows();
        promotedRows = writer.recordedRows();
      }
      Map<Long, List<String>> sourceRows = source.recordedRows();

      FailoverCheck.Result skipped =
          FailoverCheck.check(original, promoted, sourceRows, promotedRows, Map.of());

      assertThat(sourceRows).hasSize(3);
      assertThat(skipped.orphans()).isEqualTo(1);
      assertThat(skipped.lost()).as(skipped.problems().toString()).isEqualTo(2);
      assertThat(skipped.verdict().ok()).isFalse();
      assertThat(skipped.verdict().failed())
          .containsExactly(
              "the original holds the promoted history",
              "every orphan under a printed orphan tag",
              "no commit lost");

      String failback = cli("failback", "--primary", promoted, "--old-source", original);
      assertThat(failback).startsWith("0");
      Map<String, Long> tags = FailoverCampaign.orphanTags(failback);
      assertThat(tags).hasSize(1);

      FailoverCheck.Result done =
          FailoverCheck.check(original, promoted, sourceRows, promotedRows, tags);

      assertThat(done.problems()).isEmpty();
      assertThat(done.lost()).isZero();
      assertThat(done.orphans()).isEqualTo(1);
      assertThat(done.verdict().ok()).isTrue();
    }
  }

  /** Runs a command of the service's command line here; its exit code, then its output. */
  private static String cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(List.of("--settle-time", "0ms"));
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return exit + "\n" + out + err;
  }
}
