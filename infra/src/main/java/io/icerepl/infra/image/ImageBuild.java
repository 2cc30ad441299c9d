package io.icerepl.infra.image;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the service's container image as a tarball ({@code docker load}, {@code skopeo copy
 * docker-archive:…}) without a container daemon or a registry: over an empty base, a Java runtime
 * made with {@code jlink} and the C libraries it links, then the service jar's own layers. The
 * Dockerfile builds the same image on a published JRE base for those who use Docker.
 *
 * <p>Arguments: {@code <replicator-app.jar> <work folder> <image tarball> <image name:tag>}.
 */
public final class ImageBuild {
  /** Where the runtime lives in the image, and what the entry point runs. */
  static final AbsoluteUnixPath JAVA_HOME = AbsoluteUnixPath.get("/opt/java");

  static final AbsoluteUnixPath APP = AbsoluteUnixPath.get("/app");

  /** Numeric, so a runtime that requires a non-root user can check it without /etc/passwd. */
  static final String USER = "10001:10001";

  /** The status API, /actuator/health and /actuator/prometheus. */
  static final int PORT = 8080;

  /**
   * The image's layers, from the least to the most often changed, so a new release changes only the
   * last: the runtime, then Spring Boot's layers of the service jar.
   */
  static final List<String> JAR_LAYERS =
      List.of("dependencies", "spring-boot-loader", "snapshot-dependencies", "application");

  private ImageBuild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      throw new IllegalArgumentException(
          "Usage: ImageBuild <replicator-app.jar> <work folder> <image tarball> <image name:tag>");
    }
    Path jar = Path.of(args[0]);
    Path work = Path.of(args[1]);
    Path tarball = Path.of(args[2]);
    String name = args[3];
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException(
          "Cannot build the image: "
              + jar
              + " does not exist; build the service jar first (mvn -B package -DskipTests)");
    }
    long started = System.nanoTime();
    Path runtime = JavaRuntime.jlink(work.resolve("runtime"));
    List<FileEntriesLayer> layers = new ArrayList<>();
    layers.add(RuntimeLayer.of(runtime, work.resolve("system"), JAVA_HOME));
    Path extracted = JarLayers.extract(jar, work.resolve("extracted"));
    for (String layer : JAR_LAYERS) {
      JarLayers.layer(extracted.resolve(layer), layer, APP).ifPresent(layers::add);
    }
    ClassDataLayer.record(layers, work, APP, USER).ifPresent(layers::add);
    Files.createDirectories(tarball.toAbsolutePath().getParent());
    Jib.fromScratch()
        .setFileEntriesLayers(layers)
        .setEnvironment(
            Map.of(
                "JAVA_HOME",
                JAVA_HOME.toString(),
                "PATH",
                JAVA_HOME.resolve("bin") + ":/usr/bin:/bin"))
        .setWorkingDirectory(APP)
        .setUser(USER)
        .addExposedPort(Port.tcp(PORT))
        // arguments given to the container follow `serve` and go to Spring (--server.port=8081)
        // the archive is used when the image has one and this JVM can map it, ignored quietly else
        .setEntrypoint(
            JAVA_HOME.resolve("bin/java").toString(),
            "-XX:SharedArchiveFile=" + APP.resolve(ClassDataLayer.ARCHIVE),
            "-Xshare:auto",
            "-Xlog:cds=off",
            "-jar",
            APP.resolve("replicator-app.jar").toString(),
            "serve")
        .setFormat(ImageFormat.Docker)
        .containerize(
            Containerizer.to(TarImage.at(tarball).named(name))
                .setBaseImageLayersCache(work.resolve("cache"))
                .setApplicationLayersCache(work.resolve("cache"))
                .setOfflineMode(true));
    System.out.printf(
        "Image %s written to %s (%d MiB) in %.1f s%n",
        name,
        tarball,
        Files.size(tarball) >> 20,
        Duration.ofNanos(System.nanoTime() - started).toMillis() / 1000.0);
  }

  /** Runs a command to its end, failing with its output when it fails. */
  static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    int exit = process.waitFor();
    if (exit != 0) {
      throw new IOException(String.join(" ", command) + " failed (" + exit + "): " + output);
    }
    return output;
  }
}
