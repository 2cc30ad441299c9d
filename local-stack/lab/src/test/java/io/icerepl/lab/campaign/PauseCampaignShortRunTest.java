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
 * The pause campaign, short: two service processes on one queue, one paused past the lease TTL at
 * its state write, so the continued process attempts a write after it lost its lease, which the
 * store must refuse.
 */
class PauseCampaignShortRunTest {
  /** The service jar the reactor builds before the lab's tests run. */
  private static final Path SERVICE_JAR =
      Path.of("..", "..", "replicator-app", "target", "replicator-app.jar");

  @Test
  void aPausedProcessWritesNothingAfterLosingItsLease(@TempDir Path dir) throws Exception {
    assertThat(SERVICE_JAR).isRegularFile();
    StringWriter out = new StringWriter();
    PauseCampaign campaign =
        new PauseCampaign(
            new PauseCampaign.Settings(
                2,
                1,
                1,
                SERVICE_JAR.toAbsolutePath(),
                Duration.ofSeconds(3),
                Duration.ofSeconds(1),
                Duration.ofMinutes(5),
                dir,
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")),
            new PrintWriter(out, true));

    boolean ok = campaign.run();

    assertThat(ok).as(out.toString()).isTrue();
    Matcher stale =
        Pattern.compile("\\| stale writes attempted / refused by the store \\| (\\d+) / (\\d+) \\|")
            .matcher(out.toString());
    assertThat(stale.find()).as(out.toString()).isTrue();
    assertThat(Integer.parseInt(stale.group(2))).as(out.toString()).isPositive();
    assertThat(stale.group(2)).as(out.toString()).isEqualTo(stale.group(1));
    assertThat(out.toString())
        .containsPattern("pause +1 of instance \\d \\(pid \\d+\\) at state")
        .containsPattern("/ \\d+ / 0 \\|") // lost
        .contains("| tables diverged | 0 |")
        .contains("pause campaign: OK");
  }
}
