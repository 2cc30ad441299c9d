package io.icerepl.copier.copy;

import java.time.Duration;
import java.util.Locale;

/** Sizes and times as people read them: {@code 3.2 MiB}, {@code 1 min 05 s}. */
public final class HumanUnits {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

  private HumanUnits() {}

  public static String bytes(long bytes) {
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }

  public static String time(Duration time) {
    long seconds = time.toSeconds();
    if (seconds < 60) {
      return String.format(Locale.ROOT, "%.1f s", time.toMillis() / 1000.0);
    }
    if (seconds < 3600) {
      return String.format(Locale.ROOT, "%d min %02d s", seconds / 60, seconds % 60);
    }
    return String.format(Locale.ROOT, "%d h %02d min", seconds / 3600, seconds % 3600 / 60);
  }
}
