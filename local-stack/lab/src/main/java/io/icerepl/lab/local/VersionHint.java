package io.icerepl.lab.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;

/**
 * A table's current metadata file as its {@code metadata/version-hint.text} names it: a file name
 * (the demo writer's {@code <V>-<uuid>.metadata.json}) or a version number (the replicator's {@code
 * v<N>.metadata.json}, which it writes before it moves the hint).
 */
public final class VersionHint {
  private VersionHint() {}

  /** The metadata file the table at {@code location} names as its head; empty without a hint. */
  public static Optional<String> headFile(FileIO io, String location) {
    InputFile hint = io.newInputFile(location + "/metadata/version-hint.text");
    if (!hint.exists()) {
      return Optional.empty();
    }
    String named;
    try (InputStream in = hint.newStream()) {
      named = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + hint.location(), e);
    }
    String file = named.matches("\\d+") ? "v" + named + ".metadata.json" : named;
    return Optional.of(location + "/metadata/" + file);
  }
}
