package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failover campaign's group mode, short, at the group's default settings (no tag until five
 * minutes, so the promotion tags the cut the replicas prove): a group's consistent promotion killed
 * after it began writing, both tables promoted at one cut, every replicated snapshot on main up to
 * the cut or on its replicated branch after it.
 */
class GroupFailoverCampaignShortRunTest {
  /** The service jar the reactor builds before the lab's tests run. */
  private static final Path SERVICE_JAR =
      Path.of("..", "..", "replicator-app", "target", "replicator-app.jar");

  @Test
  void aShortGroupCampaignKillsThePromotionAfterItWroteAndPromotesAtOneCut(@TempDir Path dir)
      throws Exception {
    assertThat(SERVICE_JAR).isRegularFile();
    StringWriter out = new StringWriter();
    // seed 1 draws a kill of the second drill's promotion once it wrote; the first measures
    GroupFailoverCampaign campaign =
        new GroupFailoverCampaign(
            new GroupFailoverCampaign.Settings(
                2,
                1,
                SERVICE_JAR.toAbsolutePath(),
                dir,
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                GroupFailoverCampaign.GroupSettings.DEFAULTS),
            new PrintWriter(out, true));

    boolean ok = campaign.run();

    assertThat(ok).as(out.toString()).isTrue();
    Matcher kills =
        Pattern.compile("\\| kills during promote --consistent \\| (\\d+) \\((\\d+) after")
            .matcher(out.toString());
    assertThat(kills.find()).as(out.toString()).isTrue();
    assertThat(Integer.parseInt(kills.group(2))).as("kills after writing").isPositive();
    assertThat(out.toString())
        .contains("| drills run / passed | 2 / 2 |")
        .contains("| promoted at one cut | 2 of 2 drills")
        .containsPattern(
            "\\| replicated snapshots lost \\| 0 \\(of [1-9]\\d* checked; \\d+ replicated after"
                + " the cut, on its replicated branch\\) \\|")
        .containsPattern("\\| cut lag at failover median \\(min-max\\) \\| \\d+\\.\\d s ")
        .contains("failover campaign, group mode: OK");
  }
}
