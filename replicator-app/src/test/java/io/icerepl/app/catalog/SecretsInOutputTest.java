package io.icerepl.app.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A catalog's secret never leaves the process: the shipped jar, as users run it, fails to reach a
 * target catalog of each kind whose URI and properties carry a password or token, and nothing it
 * prints (its error, its log lines, the stack traces under them, the drivers' and clients' own
 * messages) holds the secret's value.
 */
class SecretsInOutputTest {
  private static final Path JAR = Path.of("target", "replicator-app.jar");
  private static final String SECRET = "Sup3r-S3cret-Pw-0917";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        // a PostgreSQL catalog nobody answers: password in the user info, the query and a property
        "type=jdbc,uri=jdbc:postgresql://replicator:"
            + SECRET
            + "@127.0.0.1:1/iceberg?password="
            + SECRET
            + ",jdbc.password="
            + SECRET,
        // the same as PyIceberg writes it
        "type=sql,uri=postgresql://replicator:" + SECRET + "@127.0.0.1:1/iceberg",
        // a REST catalog nobody answers: user info in its URI, a bearer token, OAuth credentials
        "type=rest,uri=http://replicator:" + SECRET + "@127.0.0.1:1/api,token=" + SECRET,
        "type=rest,uri=http://127.0.0.1:1/api,credential=client:" + SECRET
      })
  void noOutputOfAFailedCatalogHoldsTheSecret(String catalog) throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 2);
    Path log = dir.resolve("replicate.log");

    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                JAR.toString(),
                "replicate",
                "--source",
                source.location,
                "--target",
                dir.resolve("replica").toString(),
                "--target-catalog",
                "name=dr," + catalog,
                "--target-table",
                "db.orders",
                "--settle-time",
                "0s")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();

    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isNotZero();
    assertThat(output).as("the error is told").contains("dr");
    assertThat(output).doesNotContain(SECRET).doesNotContain("S3cret");
  }
}
