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
 * The failover campaign, short: promote and fail-back commands killed mid-run, no commit lost. Each
 * short campaign is a class of its own, so the build runs them side by side; the full campaigns
 * keep their own figures.
 */
class FailoverCampaignShortRunTest {
  /** The service jar the reactor builds before the lab's tests run. */
  private static final Path SERVICE_JAR =
      Path.of("..", "..", "replicator-app", "target", "replicator-app.jar");

  @Test
  void aShortFailoverCampaignKillsItsCommandsAndLosesNoCommit(@TempDir Path dir) throws Exception {
    assertThat(SERVICE_JAR).isRegularFile();
    StringWriter out = new StringWriter();
    // seed 1 draws a kill of the second drill's fail-back; the first drill measures the window
    FailoverCampaign campaign =
        new FailoverCampaign(
            new FailoverCampaign.Settings(
                2,
                1,
                SERVICE_JAR.toAbsolutePath(),
                dir,
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")),
            new PrintWriter(out, true));

    boolean ok = campaign.run();

    assertThat(ok).as(out.toString()).isTrue();
    Matcher kills =
        Pattern.compile(
                "\\| kills during promote / fail-back \\| (\\d+) / (\\d+) \\((\\d+) / (\\d+) after")
            .matcher(out.toString());
    assertThat(kills.find()).as(out.toString()).isTrue();
    assertThat(Integer.parseInt(kills.group(1)) + Integer.parseInt(kills.group(2))).isPositive();
    // a kill during the JVM's start-up tests little: at least one came after the command wrote
    assertThat(Integer.parseInt(kills.group(3)) + Integer.parseInt(kills.group(4)))
        .as(out.toString())
        .isPositive();
    assertThat(out.toString())
        .contains("| drills run / passed | 2 / 2 |")
        .contains("| commits lost | 0 (")
        .containsPattern("\\| RTO median / max \\| \\d+\\.\\d s / \\d+\\.\\d s \\|")
        .contains("failover campaign: OK");
  }
}
