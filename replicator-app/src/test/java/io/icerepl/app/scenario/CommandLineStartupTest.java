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
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("replicate.out").toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();
    assertThat(process.exitValue())
        .as(Files.readString(dir.resolve("replicate.out"), StandardCharsets.UTF_8))
        .isZero();

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
}
