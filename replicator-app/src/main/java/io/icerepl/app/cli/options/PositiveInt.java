package io.icerepl.app.cli.options;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A count that must be at least 1; picocli names the option the user typed in the error. */
final class PositiveInt implements ITypeConverter<Integer> {
  @Override
  public Integer convert(String value) {
    int n;
    try {
      n = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' is not a whole number");
    }
    if (n < 1) {
      throw new TypeConversionException("must be at least 1, got " + n);
    }
    return n;
  }
}
