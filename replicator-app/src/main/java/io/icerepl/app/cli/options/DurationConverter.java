package io.icerepl.app.cli.options;

import io.icerepl.merge.retention.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/**
 * A duration on the command line in the one format of every option and setting: {@code 500ms},
 * {@code 5s}, {@code 3m}, {@code 12h}, {@code 90d}, combined as {@code 1d12h}.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return Duration.ofMillis(Durations.parseMillis(value));
  }
}
