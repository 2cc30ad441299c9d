package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start-up path the build prepares in {@code mvn package} (see the pom's {@code cds-*} steps),
 * done here on the service jar the tests run: the jar extracted to Spring Boot's tools layout, a
 * class-data-sharing archive recorded from a first replication, then a later run that must map the
 * archive ({@code -Xshare:on} refuses to start otherwise) and load the replicator's classes from
 * it; the extracted jar also runs without the archive.
 */
class ClassDataSharingTest {
  private static final Path JAR = Path.of("target", "replicator-app.jar");

  @Test
  void theExtractedJarRecordsAnArchiveThatALaterReplicateLoadsItsClassesFrom(@TempDir Path dir)
      throws Exception {
    Path app = dir.resolve("app");
    run(dir, "extract", "-Djarmode=tools", "-jar", JAR, "extract", "--destination", app);
    Path extracted = app.resolve("replicator-app.jar");
    assertThat(extracted).isRegularFile();
    assertThat(app.resolve("lib")).isDirectoryContaining("glob:**/picocli-*.jar");

    ScenarioTable source = Scenario.ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY.write(dir);
    String target = Replication.targetFor(source, dir);
    Path archive = dir.resolve("replicate.jsa");
    run(
        dir,
        "training",
        "-XX:ArchiveClassesAtExit=" + archive,
        "-jar",
        extracted,
        "replicate",
        "--source",
        source.location(),
        "--target",
        target);
    assertThat(archive).isRegularFile();
    new ReplicaVerifier().verify(source, target);

    Path classes = dir.resolve("classes.log");
    String upToDate =
        run(
            dir,
            "with-archive",
            "-Xshare:on",
            "-XX:SharedArchiveFile=" + archive,
            "-Xlog:class+load=info:file=" + classes,
            "-jar",
            extracted,
            "replicate",
            "--source",
            source.location(),
            "--target",
            target);
    assertThat(upToDate).contains("versions applied   0");
    assertThat(Files.readAllLines(classes, StandardCharsets.UTF_8))
        .as("classes the up-to-date run took from the recorded archive")
        .anyMatch(
            line ->
                line.contains(" io.icerepl.app.engine.TableReplicator ")
                    && line.contains("shared objects file (top)"))
        .anyMatch(
            line ->
                line.contains(" io.icerepl.app.cli.commands.ReplicateCommand ")
                    && line.contains("shared objects file (top)"));

    assertThat(run(dir, "without-archive", "-jar", extracted, "--version"))
        .contains("iceberg-replicator");
  }

  /** Runs {@code java <args>} in {@code dir}, expects exit code 0 and returns its output. */
  private static String run(Path dir, String name, Object... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (Object arg : args) {
      command.add(arg.toString());
    }
    Path output = dir.resolve(name + ".out");
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
    String text = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("exit code of %s: %s", command, text).isZero();
    return text;
  }
}
