package io.icerepl.infra.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarInputStream;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image the build wrote (ImageBuild, before these tests) is the one the CloudFormation runs:
 * its config, its layers, and the service starting inside it. The image is built with {@code
 * -Pimage}, which passes its tarball here; without the profile these tests are skipped.
 */
@EnabledIfSystemProperty(
    named = "image.tarball",
    matches = ".+",
    disabledReason = "the image is built with -Pimage")
class ImageTarballTest {
  private static final Path TARBALL = Path.of(System.getProperty("image.tarball"));
  private static ImageTarball image;

  @BeforeAll
  static void read() {
    assertThat(TARBALL).as("the image tarball the build writes before the tests").exists();
    image = ImageTarball.read(TARBALL);
  }

  @Test
  void theImageRunsTheServiceAsANonRootUserOnItsPort() {
    assertThat(image.manifest().get(0).get("RepoTags").get(0).asText())
        .isEqualTo(System.getProperty("image.name"));
    JsonNode config = image.config().get("config");
    assertThat(strings(config.get("Entrypoint")))
        .containsExactly(
            "/opt/java/bin/java",
            "-XX:SharedArchiveFile=/app/serve.jsa",
            "-Xshare:auto",
            "-Xlog:cds=off",
            "-jar",
            "/app/replicator-app.jar",
            "serve");
    assertThat(config.get("User").asText()).isEqualTo("10001:10001");
    assertThat(fieldNames(config.get("ExposedPorts"))).containsExactly("8080/tcp");
    assertThat(config.get("WorkingDir").asText()).isEqualTo("/app");
    assertThat(strings(config.get("Env"))).contains("JAVA_HOME=/opt/java");
    assertThat(image.config().get("os").asText()).isEqualTo("linux");
    assertThat(image.config().get("architecture").asText()).isEqualTo("amd64");
  }

  @Test
  void theLayersGoFromTheRuntimeToTheApplicationAndMatchTheirDigests() {
    assertThat(
            StreamSupport.stream(image.config().get("history").spliterator(), false)
                .map(h -> h.get("comment").asText()))
        .containsExactlyElementsOf(
            ClassDataLayer.canRunImages()
                ? List.of("runtime", "dependencies", "application", "class-data")
                : List.of("runtime", "dependencies", "application"));
    assertThat(strings(image.config().get("rootfs").get("diff_ids")))
        .as("what a container runtime checks each layer against")
        .containsExactlyElementsOf(
            image.layers().stream().map(ImageTarball.Layer::diffId).toList());

    Map<String, ImageTarball.Entry> runtime = image.layers().get(0).entries();
    assertThat(runtime.get("opt/java/bin/java").mode() & 0777).isEqualTo(0755);
    assertThat(runtime).containsKeys("opt/java/lib/server/libjvm.so", "opt/java/lib/modules");
    assertThat(runtime)
        .as("the C library and loader the runtime links, over an empty base")
        .containsKeys("lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/libc.so.6");
    assertThat(runtime.keySet())
        .as("no X11, font or image libraries: the service is headless")
        .noneMatch(name -> name.contains("libX11") || name.contains("libfreetype"));
    assertThat(new String(runtime.get("etc/passwd").contents(), StandardCharsets.UTF_8))
        .contains("replicator:x:10001:10001:");
    assertThat(Integer.toOctalString(runtime.get("tmp").mode() & 07777))
        .as("the web server's work folder: anyone writes, only an owner deletes or renames")
        .isEqualTo("1777");

    Set<String> dependencies = files(image.layers().get(1));
    assertThat(dependencies).isNotEmpty().allMatch(name -> name.startsWith("app/lib/"));
    assertThat(dependencies).noneMatch(name -> name.contains("SNAPSHOT"));
    assertThat(files(image.layers().get(2)))
        .as("what changes with every release, alone in the last layer")
        .contains("app/replicator-app.jar")
        .allMatch(name -> name.equals("app/replicator-app.jar") || name.contains("-SNAPSHOT.jar"));
    assertThat(image.layers().stream().flatMap(layer -> layer.entries().values().stream()))
        .as("every file owned by root, read-only for the service's user")
        .allMatch(entry -> entry.uid() == 0);
  }

  /**
   * The image's JVM maps the archive recorded in the image (with {@code -Xshare:on} a JVM that
   * cannot use it stops instead of starting without it): recorded with another JVM, class path or
   * jar times, it would be ignored at every start.
   */
  @Test
  void theImagesJvmUsesTheClassDataArchiveRecordedInTheImage(@TempDir Path work) throws Exception {
    assumeTrue(ClassDataLayer.canRunImages(), "needs root, unshare and chroot to run the image");
    assertThat(image.layers().get(3).entries()).containsKey("app/serve.jsa");
    Path root = work.resolve("root");
    ImageTarball.unpack(TARBALL, root);
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    Process java =
        new ProcessBuilder(
                ClassDataLayer.inImage(
                    root,
                    "10001:10001",
                    List.of(
                        "/opt/java/bin/java",
                        "-XX:SharedArchiveFile=/app/serve.jsa",
                        "-Xshare:on",
                        "-jar",
                        "/app/replicator-app.jar",
                        "--version")))
            .redirectErrorStream(true)
            .start();
    String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(java.waitFor()).as(output).isZero();
    // the version the image's jar prints is the one the image is tagged with
    String tag = System.getProperty("image.name").substring("iceberg-replicator:".length());
    assertThat(output).contains("iceberg-replicator " + tag);
  }

  @Test
  void everyJarTheServiceJarNamesIsInTheImage() throws IOException {
    byte[] jar = image.layers().get(2).entries().get("app/replicator-app.jar").contents();
    if (jar.length == 0) {
      jar =
          Files.readAllBytes(
              TARBALL.resolveSibling("work/extracted/application/replicator-app.jar"));
    }
    String classPath;
    try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
      classPath = in.getManifest().getMainAttributes().getValue("Class-Path");
    }
    List<String> named = List.of(classPath.trim().split("\\s+"));
    Set<String> inImage = new TreeSet<>();
    image.layers().forEach(layer -> inImage.addAll(files(layer)));
    assertThat(named).hasSizeGreaterThan(50);
    assertThat(named.stream().map(path -> "app/" + path)).allMatch(inImage::contains);
  }

  /**
   * The service starts inside the unpacked image as its user and answers on its port: the runtime,
   * its libraries and its modules are enough. A container runtime is not needed: a mount namespace
   * with {@code /proc} (the loader finds the runtime's libraries through it) and {@code chroot}.
   */
  @Test
  void theServiceStartsInsideTheImageAndAnswersItsHealthCheck(@TempDir Path work) throws Exception {
    assumeTrue(
        ClassDataLayer.canRunImages(),
        "needs root, unshare and chroot to run the image without a container runtime");
    Path root = work.resolve("root");
    ImageTarball.unpack(TARBALL, root);
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    List<String> entrypoint = strings(image.config().get("config").get("Entrypoint"));
    List<String> inside = new ArrayList<>(entrypoint);
    inside.addAll(
        List.of(
            "--server.port=" + port,
            "--replicator.rules[0].name=image",
            "--replicator.rules[0].source=s3://source/warehouse",
            "--replicator.rules[0].targets[0].name=replica",
            "--replicator.rules[0].targets[0].prefix=s3://replica/warehouse",
            "--replicator.s3.source.endpoint=http://127.0.0.1:9",
            "--replicator.s3.target.endpoint=http://127.0.0.1:9",
            "--spring.cloud.aws.region.static=us-east-1"));
    List<String> command =
        ClassDataLayer.inImage(root, image.config().get("config").get("User").asText(), inside);
    Path log = work.resolve("service.log");
    Process service =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      int status = awaitHealth(port, service, Duration.ofSeconds(90));
      assertThat(status).as("/actuator/health, log:%n%s", Files.readString(log)).isEqualTo(200);
      assertThat(Files.readString(log)).contains("started by replicator");
    } finally {
      service.descendants().forEach(ProcessHandle::destroy);
      service.destroy();
      service.waitFor();
    }
  }

  private static int awaitHealth(int port, Process service, Duration limit)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(limit);
    while (Instant.now().isBefore(deadline) && service.isAlive()) {
      try {
        HttpURLConnection connection =
            (HttpURLConnection)
                URI.create("http://127.0.0.1:" + port + "/actuator/health")
                    .toURL()
                    .openConnection();
        connection.setConnectTimeout(1000);
        connection.setReadTimeout(5000);
        return connection.getResponseCode();
      } catch (IOException notYet) {
        Thread.sleep(250);
      }
    }
    return -1;
  }

  private static Set<String> files(ImageTarball.Layer layer) {
    return layer.entries().values().stream()
        .filter(entry -> !entry.directory())
        .map(ImageTarball.Entry::name)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(each -> out.add(each.asText()));
    return out;
  }

  private static List<String> fieldNames(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
