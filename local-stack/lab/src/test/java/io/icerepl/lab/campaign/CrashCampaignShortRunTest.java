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
 * The crash campaign, short: the service jar killed and restarted while a writer commits. Each
 * short campaign is a class of its own, so the build runs them side by side; the full campaigns
 * keep their own figures.
 */
class CrashCampaignShortRunTest {
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
    // a kill of an idle service tests little: at least one found the replica behind the source
    Matcher kills =
        Pattern.compile(
                "\\| kills \\(SIGKILL\\) \\| 2 \\(\\d+ while serving, of which (\\d+) with the replica behind")
            .matcher(out.toString());
    assertThat(kills.find()).as(out.toString()).isTrue();
    assertThat(Integer.parseInt(kills.group(1))).as(out.toString()).isPositive();
    assertThat(out.toString())
        .containsPattern("kill +1 at +0 ms after commit \\(life +\\d+\\.\\d s, replica behind\\)")
        .contains("crash campaign: OK")
        .contains("kill   2")
        .containsPattern(
            "\\| service start to ready \\(median / max\\) \\| \\d+\\.\\d s / \\d+\\.\\d s \\(\\d+ starts");
  }
}
