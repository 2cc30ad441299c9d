package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-shot command of the service jar starts no framework: {@code replicate} of a local table,
 * run as its own process, loads no Spring class (beyond the jar's launcher) and no AWS SDK class,
 * so its start-up costs what the replication needs and not what the service needs.
 */
class CommandLineStartupTest {
  private static final Path JAR = Path.of("target", "replicator-app.jar");

  /** Logback finds it among its service providers (spring-boot declares it) and asks it first. */
  private static final String LOGBACK_CONFIGURATOR =
      " org.springframework.boot.logging.logback.RootLogLevelConfigurator ";

  @Test
  void replicateOfALocalTableLoadsNoSpringAndNoAwsClass(@TempDir Path dir) throws Exception {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    String target = Replication.targetFor(source, dir);
    Path log = dir.resolve("classes.log");

    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info:file=" + log,
                "-jar",
                JAR.toString(),
                "replicate",
                "--source",
                source.location(),
                "--target",
                target)
            .redirectOutput(dir.resolve("replicate.out").toFile())
            .redirectError(dir.resolve("replicate.err").toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();
    String err = Files.readString(dir.resolve("replicate.err"), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(err).isZero();
    // the result alone on stdout, the logs on stderr
    assertThat(Files.readAllLines(dir.resolve("replicate.out"), StandardCharsets.UTF_8))
        .isNotEmpty()
        .allMatch(line -> line.matches("[a-z][a-z ]{17} \\S.*"), "a result line")
        .anyMatch(line -> line.startsWith("versions applied   "));
    assertThat(err).contains(" INFO ").contains("committed replica version");

    List<String> loaded = Files.readAllLines(log, StandardCharsets.UTF_8);
    assertThat(loaded)
        .as("the class loading log")
        .anyMatch(line -> line.contains(" io.icerepl.app.engine.TableReplicator "));
    assertThat(loaded)
        .as("Spring classes loaded by replicate (the launcher aside)")
        .filteredOn(
            line ->
                line.contains(" org.springframework.")
                    && !line.contains(" org.springframework.boot.loader.")
                    && !line.contains(LOGBACK_CONFIGURATOR))
        .isEmpty();
    assertThat(loaded)
        .as("AWS SDK classes loaded by replicate of a local table")
        .filteredOn(line -> line.contains(" software.amazon."))
        .isEmpty();
    new ReplicaVerifier().verify(source, target);
  }

  /** {@code --quiet --json}: one JSON object on stdout and no INFO line on stderr. */
  @Test
  void quietJsonPrintsOneObjectAndLogsNoInfo(@TempDir Path dir) throws Exception {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    String target = Replication.targetFor(source, dir);
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                JAR.toString(),
                "replicate",
                "--source",
                source.location(),
                "--target",
                target,
                "--quiet",
                "--json")
            .redirectOutput(dir.resolve("replicate.out").toFile())
            .redirectError(dir.resolve("replicate.err").toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();
    String err = Files.readString(dir.resolve("replicate.err"), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(err).isZero();
    List<String> out = Files.readAllLines(dir.resolve("replicate.out"), StandardCharsets.UTF_8);
    assertThat(out).hasSize(1);
    com.fasterxml.jackson.databind.JsonNode result =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.get(0));
    assertThat(result.get("versionsApplied").asInt()).isPositive();
    assertThat(result.get("snapshotsAdded").asInt())
        .isEqualTo(
            new ReplicaVerifier().load(target).currentSnapshot() == null
                ? 0
                : countSnapshots(target));
    assertThat(err).doesNotContain(" INFO ");
    new ReplicaVerifier().verify(source, target);
  }

  private static int countSnapshots(String location) {
    int n = 0;
    for (org.apache.iceberg.Snapshot ignored : new ReplicaVerifier().load(location).snapshots()) {
      n++;
    }
    return n;
  }
}
