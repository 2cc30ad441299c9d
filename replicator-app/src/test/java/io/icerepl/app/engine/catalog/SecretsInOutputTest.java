package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.fixtures.JarCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A catalog's secret never leaves the process: the shipped jar, as users run it, fails to reach a
 * target catalog of each kind whose URI and properties carry a password or token, and nothing it
 * prints (its error line, its {@code --json} error, its log lines, the stack traces under them, the
 * drivers' and clients' own messages) holds the secret's value. Each case gets as far as the
 * driver's or client's own attempt to connect, whose message quotes the URL it was given: a case
 * stopped by the replicator's own checks before that would prove nothing.
 */
class SecretsInOutputTest {
  private static final Path JAR = Path.of("target", "replicator-app.jar");
  private static final String SECRET = "Sup3r-S3cret-Pw-0917";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** A catalog nobody answers, and what its driver or client says when it fails to connect. */
  static Stream<Arguments> catalogs() {
    List<Arguments> cases = new ArrayList<>();
    for (boolean json : List.of(false, true)) {
      // PostgreSQL: password in the user info, the query and a property; Iceberg's JDBC pool
      // quotes the whole URL when the driver fails
      cases.add(
          Arguments.of(
              "type=jdbc,uri=jdbc:postgresql://replicator:"
                  + SECRET
                  + "@127.0.0.1:1/iceberg?password="
                  + SECRET
                  + ",jdbc.password="
                  + SECRET,
              "Failed to connect: jdbc:postgresql://",
              json));
      // the same as PyIceberg writes it
      cases.add(
          Arguments.of(
              "type=sql,uri=postgresql://replicator:" + SECRET + "@127.0.0.1:1/iceberg",
              "Failed to connect: jdbc:postgresql://",
              json));
      // REST: user info in its URI, a bearer token, OAuth credentials
      cases.add(
          Arguments.of(
              "type=rest,uri=http://replicator:" + SECRET + "@127.0.0.1:1/api,token=" + SECRET,
              "Error occurred while processing GET request",
              json));
      cases.add(
          Arguments.of(
              "type=rest,uri=http://127.0.0.1:1/api,credential=client:" + SECRET,
              "Connect to http://127.0.0.1:1 failed",
              json));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, --json {2}")
  @MethodSource("catalogs")
  void noOutputOfAFailedCatalogHoldsTheSecret(String catalog, String driverSays, boolean json)
      throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 2);
    Path out = dir.resolve("replicate.out");
    Path err = dir.resolve("replicate.err");

    List<String> command =
        JarCommand.of(
            JAR,
            "replicate",
            "--source",
            source.location,
            "--target",
            dir.resolve("replica").toString(),
            "--target-catalog",
            // a warehouse, so that the JDBC catalog goes on to its driver
            "name=dr," + catalog + ",warehouse=" + dir.resolve("warehouse"),
            "--target-table",
            "db.orders",
            "--settle-time",
            "0s");
    if (json) {
      command.add("--json");
    }
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();

    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    String output = stdout + stderr;
    assertThat(process.exitValue()).as(output).isNotZero();
    String errorLine =
        stderr.lines().filter(l -> l.startsWith("error: ")).reduce((a, b) -> b).orElse("");
    assertThat(errorLine).as(output).contains("catalog dr").contains(driverSays);
    if (json) {
      JsonNode error = JSON.readTree(stdout).get("error");
      assertThat(error.get("message").asText())
          .as(stdout)
          .contains("catalog dr")
          .contains(driverSays)
          .doesNotContain(SECRET)
          .doesNotContain("S3cret");
      assertThat(error.get("exitCode").asInt()).isEqualTo(process.exitValue());
    }
    assertThat(output).doesNotContain(SECRET).doesNotContain("S3cret");
  }
}
