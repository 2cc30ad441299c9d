package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs the replicator through its CLI and looks at table directories on disk. */
final class Replication {
  private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.metadata\\.json");

  private Replication() {}

  /** {@code replicate --source src --target dst}; asserts the exit code is 0. */
  static void replicate(String source, String target) {
    int exit = ReplicatorCli.execute("replicate", "--source", source, "--target", target);
    assertThat(exit).as("exit code of replicate --source %s --target %s", source, target).isZero();
  }

  /**
   * Where to put {@code source}'s replica inside {@code dir}: spelled the other way than the source
   * (a file: URI when the source is a plain path and the other way round), so path mapping between
   * the two spellings is exercised.
   */
  static String targetFor(ScenarioTable source, Path dir) {
    Path target = dir.resolve("replica").toAbsolutePath();
    return source.location().startsWith("file:") ? target.toString() : target.toUri().toString();
  }

  /** The {@code v<N>.metadata.json} files of the table at {@code location}, by version. */
  static List<Path> versionFiles(String location) {
    Path metadata = Paths.get(ReplicaVerifier.localPath(location), "metadata");
    if (!Files.isDirectory(metadata)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(metadata)) {
      return files
          .filter(p -> VERSION.matcher(p.getFileName().toString()).matches())
          .sorted(Comparator.comparingInt(Replication::version))
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int version(Path versionFile) {
    Matcher m = VERSION.matcher(versionFile.getFileName().toString());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a version file: " + versionFile);
    }
    return Integer.parseInt(m.group(1));
  }

  /** Every file under the table's metadata directory with its size. */
  static List<String> metadataDirListing(String location) {
    Path metadata = Paths.get(ReplicaVerifier.localPath(location), "metadata");
    try (Stream<Path> files = Files.list(metadata)) {
      return files
          .map(
              p -> {
                try {
                  return p.getFileName() + " " + Files.size(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
