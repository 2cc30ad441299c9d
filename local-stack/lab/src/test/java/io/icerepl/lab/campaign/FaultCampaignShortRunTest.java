package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fault campaign, short: S3 faults injected on both sides of the service in-process. Each short
 * campaign is a class of its own, so the build runs them side by side; the full campaigns keep
 * their own figures.
 */
class FaultCampaignShortRunTest {
  @Test
  void aShortFaultCampaignInjectsFaultsAndPasses() throws Exception {
    StringWriter out = new StringWriter();

    boolean ok =
        new FaultCampaign(
                List.of(20),
                8,
                1,
                Duration.ofMinutes(5),
                Duration.ofMillis(200),
                new PrintWriter(out, true))
            .run();

    assertThat(ok).as(out.toString()).isTrue();
    assertThat(out.toString()).contains("fault campaign: OK").contains("| 20 % |");
  }
}
