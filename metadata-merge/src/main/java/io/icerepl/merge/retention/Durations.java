package io.icerepl.merge.retention;

/**
 * Durations as ClickHouse's {@code retention_period} spells them: one or more {@code
 * <number><unit>} pairs, concatenated ({@code "90d"}, {@code "1d12h30m"}, {@code "500ms"}).
 */
public final class Durations {
  private static final long SECOND = 1000L;
  private static final long MINUTE = 60 * SECOND;
  private static final long HOUR = 60 * MINUTE;
  private static final long DAY = 24 * HOUR;

  private Durations() {}

  /**
   * Parses a duration into milliseconds. Units: {@code d}, {@code h}, {@code m}, {@code s}, {@code
   * ms}, and, as ClickHouse also accepts them, {@code w} (7 days) and {@code y} (365 days).
   *
   * @throws IllegalArgumentException {@code "Cannot parse duration '<text>': <why>"}
   */
  public static long parseMillis(String text) {
    if (text == null || text.isEmpty()) {
      throw invalid(text, "it is empty");
    }
    long total = 0;
    int pos = 0;
    while (pos < text.length()) {
      int numberStart = pos;
      while (pos < text.length() && isDigit(text.charAt(pos))) {
        pos++;
      }
      if (pos == numberStart) {
        char c = text.charAt(pos);
        throw invalid(
            text,
            c == '-'
                ? "durations cannot be negative"
                : "expected a number at position " + pos + ", found '" + c + "'");
      }
      String number = text.substring(numberStart, pos);
      int unitStart = pos;
      while (pos < text.length() && isLetter(text.charAt(pos))) {
        pos++;
      }
      if (pos == unitStart) {
        throw invalid(
            text,
            pos == text.length()
                ? "missing unit after " + number + " (units: y, w, d, h, m, s, ms)"
                : "unexpected '" + text.charAt(pos) + "' at position " + pos);
      }
      long unitMillis = unitMillis(text, text.substring(unitStart, pos));
      try {
        total = Math.addExact(total, Math.multiplyExact(Long.parseLong(number), unitMillis));
      } catch (ArithmeticException | NumberFormatException e) {
        // Both mean the value does not fit in a long of milliseconds.
        throw invalid(text, "too large");
      }
    }
    return total;
  }

  private static long unitMillis(String text, String unit) {
    switch (unit) {
      case "y":
        return 365 * DAY;
      case "w":
        return 7 * DAY;
      case "d":
        return DAY;
      case "h":
        return HOUR;
      case "m":
        return MINUTE;
      case "s":
        return SECOND;
      case "ms":
        return 1L;
      default:
        throw invalid(text, "unknown unit '" + unit + "' (units: y, w, d, h, m, s, ms)");
    }
  }

  // ASCII only: Character.isDigit would accept other scripts' digits that Long.parseLong rejects.
  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isLetter(char c) {
    return c >= 'a' && c <= 'z';
  }

  private static IllegalArgumentException invalid(String text, String why) {
    return new IllegalArgumentException("Cannot parse duration '" + text + "': " + why);
  }
}
