package io.icerepl.app.cli.options;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The folder a command keeps its files in; a new temporary folder when none is given. */
public final class WorkDirOption {
  // --dir is the name demo and benchmark had first; scripts that use it keep working
  @Option(
      names = {"--work-dir", "--dir"},
      paramLabel = "<folder>",
      description = "Work folder (a new temporary folder unless a default is shown).")
  Path dir;

  public WorkDirOption() {}

  /** A work folder defaulting to {@code dir} instead of a temporary one. */
  public WorkDirOption(Path dir) {
    this.dir = dir;
  }

  public Optional<Path> dir() {
    return Optional.ofNullable(dir);
  }

  /**
   * The folder, created if needed; a new temporary folder named after {@code name} when none is
   * given.
   */
  public Path resolve(String name) throws IOException {
    return dir != null ? Files.createDirectories(dir) : Files.createTempDirectory(name);
  }

  /**
   * A folder of its own for one of several parts of a command: {@code name} under the given folder,
   * or a new temporary one, so the parts never share files.
   */
  public Path resolvePart(String name) throws IOException {
    return dir != null
        ? Files.createDirectories(dir.resolve(name))
        : Files.createTempDirectory(name);
  }
}
