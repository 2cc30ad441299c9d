package io.icerepl.app.cli.options;

import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;

/**
 * A table location as the user typed it: a URI ({@code s3://…}, {@code file:…}) as it is, a local
 * path made absolute against the working directory, so {@code --source data/orders} means the same
 * table wherever the command later opens it.
 */
public final class LocationConverter implements ITypeConverter<String> {
  @Override
  public String convert(String value) {
    if (value.contains("://") || value.startsWith("file:") || value.isBlank()) {
      return value;
    }
    Path path = Path.of(value);
    return path.isAbsolute() ? value : path.toAbsolutePath().normalize().toString();
  }
}
