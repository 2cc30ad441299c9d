package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs of the campaigns, so a regression in the service or in their checks shows in the
 * build.
 */
class CampaignsTest {
  /** The service jar the reactor builds before the lab's tests run. */
  private static final Path SERVICE_JAR =
      Path.of("..", "..", "replicator-app", "target", "replicator-app.jar");

  @Test
  void aShortCrashCampaignOnTheServiceJarPasses(@TempDir Path dir) throws Exception {
    assertThat(SERVICE_JAR).isRegularFile();
    StringWriter out = new StringWriter();
    // a commit every 2 s and a reader pause of 200 ms: few versions to converge on, so the run
    // stays
    // short on a busy build machine; the full campaign keeps its own figures
    CrashCampaign campaign =
        new CrashCampaign(
            new CrashCampaign.Settings(
                2,
                1,
                SERVICE_JAR.toAbsolutePath(),
                Duration.ofMillis(500),
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                Duration.ofMinutes(10),
                Duration.ofMillis(200),
                dir,
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")),
            new PrintWriter(out, true));

    boolean ok = campaign.run();

    assertThat(ok).as(out.toString()).isTrue();
    assertThat(out.toString())
        .contains("crash campaign: OK")
        .contains("kill   2")
        .containsPattern(
            "\\| service start to ready \\(median / max\\) \\| \\d+\\.\\d s / \\d+\\.\\d s \\(\\d+ starts");
  }

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
        Pattern.compile("\\| kills during promote / fail-back \\| (\\d+) / (\\d+) ")
            .matcher(out.toString());
    assertThat(kills.find()).as(out.toString()).isTrue();
    assertThat(Integer.parseInt(kills.group(1)) + Integer.parseInt(kills.group(2))).isPositive();
    assertThat(out.toString())
        .contains("| drills run / passed | 2 / 2 |")
        .contains("| commits lost | 0 (")
        .containsPattern("\\| RTO median / max \\| \\d+\\.\\d s / \\d+\\.\\d s \\|")
        .contains("failover campaign: OK");
  }

  @Test
  void aShortFaultCampaignInjectsFaultsAndPasses() throws Exception {
    StringWriter out = new StringWriter();

    boolean ok =
        new FaultCampaign(List.of(20), 8, 1, Duration.ofMinutes(5), new PrintWriter(out, true))
            .run();

    assertThat(ok).as(out.toString()).isTrue();
    assertThat(out.toString()).contains("fault campaign: OK").contains("| 20 % |");
  }
}
