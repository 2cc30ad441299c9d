package io.icerepl.app.cli.options;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/**
 * A size on the command line, in one format for every option: a number of bytes with an optional
 * binary unit ({@code 268435456}, {@code 256MiB}, {@code 1TiB}); {@code KB}, {@code MB}, … are read
 * as the binary units too, as Spring reads the service's sizes.
 */
final class ByteSize implements ITypeConverter<Long> {
  private static final Pattern SIZE =
      Pattern.compile("(\\d+)\\s*(B|KI?B|MI?B|GI?B|TI?B|K|M|G|T)?", Pattern.CASE_INSENSITIVE);

  @Override
  public Long convert(String value) {
    return parse(value);
  }

  /**
   * @throws IllegalArgumentException naming the value and the format expected
   */
  static long parse(String value) {
    Matcher m = SIZE.matcher(value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "Cannot read size '"
              + value
              + "': expected bytes, or a number with B, KiB, MiB, GiB or TiB");
    }
    long number = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
    int shift =
        switch (unit.charAt(0)) {
          case 'K' -> 10;
          case 'M' -> 20;
          case 'G' -> 30;
          case 'T' -> 40;
          default -> 0;
        };
    if (shift > 0 && number > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("Cannot read size '" + value + "': too large");
    }
    return number << shift;
  }
}
