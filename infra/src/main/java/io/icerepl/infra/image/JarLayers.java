package io.icerepl.infra.image;

import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The service jar in Spring Boot's layers ({@code dependencies}, {@code spring-boot-loader}, {@code
 * snapshot-dependencies}, {@code application}), extracted as the Dockerfile does: the application
 * jar and {@code lib/} on the JVM's own class path, without the nested-jar launcher.
 */
final class JarLayers {
  private JarLayers() {}

  /** Extracts {@code jar} into {@code output}, one folder per layer. */
  static Path extract(Path jar, Path output) throws IOException, InterruptedException {
    JavaRuntime.delete(output);
    ImageBuild.run(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Djarmode=tools",
            "-jar",
            jar.toString(),
            "extract",
            "--layers",
            "--destination",
            output.toString()));
    return output;
  }

  /** The layer of one extracted folder, its files under {@code app}; empty when it has none. */
  static Optional<FileEntriesLayer> layer(Path folder, String name, AbsoluteUnixPath app)
      throws IOException {
    if (!Files.isDirectory(folder)) {
      return Optional.empty();
    }
    FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName(name);
    int files = 0;
    try (Stream<Path> each = Files.walk(folder)) {
      for (Path file : each.filter(Files::isRegularFile).sorted().toList()) {
        layer.addEntry(file, app.resolve(folder.relativize(file).toString().replace('\\', '/')));
        files++;
      }
    }
    return files == 0 ? Optional.empty() : Optional.of(layer.build());
  }
}
