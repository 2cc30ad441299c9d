package io.icerepl.app.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * The version {@code --version} prints: the build's own ({@code project.version}, written into
 * {@code version.properties} by Maven), the one the container image is tagged with, so the two
 * cannot disagree.
 */
public final class BuildVersion implements CommandLine.IVersionProvider {
  private static final String VERSION = read();

  /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    return VERSION;
  }

  @Override
  public String[] getVersion() {
    return new String[] {"iceberg-replicator " + VERSION};
  }

  private static String read() {
    try (InputStream in = BuildVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException("Cannot read the build's version: no version.properties");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the build's version: " + e.getMessage(), e);
    }
  }
}
