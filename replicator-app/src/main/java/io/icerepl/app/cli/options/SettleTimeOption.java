package io.icerepl.app.cli.options;

import io.icerepl.merge.retention.Durations;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How old a source metadata file without a version hint must be before it is taken for the head.
 */
public final class SettleTimeOption {
  @Option(
      names = "--settle-time",
      paramLabel = "<duration>",
      description =
          "Without a version hint, a <V>-<uuid>.metadata.json file younger than this is not"
              + " yet taken for the source's head: a writer that lost its catalog commit leaves one"
              + " (e.g. 5s, 500ms).")
  String settleTime = "5s";

  /**
   * @throws IllegalArgumentException when the value is not a duration
   */
  public Duration settleTime() {
    return Duration.ofMillis(Durations.parseMillis(settleTime));
  }
}
