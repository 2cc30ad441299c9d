package io.icerepl.lab.campaign;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The service jar run as a separate process, {@code java <jvm options> -jar <jar> <arguments>}, so
 * a campaign can SIGKILL it as an operator's crash would: no shutdown hook, no graceful stop. A jar
 * extracted with its class-data archives ({@code replicator-app/target/cds/}) starts as {@code
 * bin/replicator} starts it: {@code serve.jsa} for {@code serve}, {@code replicate.jsa} and the
 * quick compiler alone for the one-shot commands.
 */
public record ServiceJar(Path jar, List<String> jvmOptions) {
  public ServiceJar {
    jvmOptions = List.copyOf(jvmOptions);
  }

  /**
   * The jar a campaign runs by default: the extracted one with its archives where {@code mvn
   * package} made it, as users start it, else the jar as it ships.
   */
  public static Path defaultJar() {
    Path target = Path.of("replicator-app", "target");
    Path extracted = target.resolve("cds").resolve("replicator-app.jar");
    return Files.isRegularFile(extracted) ? extracted : target.resolve("replicator-app.jar");
  }

  /**
   * Whether a {@code serve} process on loopback {@code port} answers its health check: Spring
   * Boot's {@code /actuator/health} answers 200 only when the service is {@code UP}.
   */
  public static boolean isHealthy(int port) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                  .timeout(Duration.ofSeconds(1))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Starts one command, its output and errors appended to {@code log}. */
  public Process start(Path log, List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    boolean serve = !arguments.isEmpty() && arguments.get(0).equals("serve");
    Path folder = jar.toAbsolutePath().getParent();
    Path archive = folder.resolve(serve ? "serve.jsa" : "replicate.jsa");
    if (Files.isRegularFile(archive)) {
      // an archive another JDK build made is ignored, quietly
      command.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off"));
      if (!serve) {
        command.add("-XX:TieredStopAtLevel=1");
      }
    }
    // the campaign's own options come after, so they win
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(arguments);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }
}
