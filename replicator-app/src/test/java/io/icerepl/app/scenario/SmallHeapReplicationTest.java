package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM's default heap in a 1 GiB container is 256 MiB: {@code replicate} runs there as a process
 * of its own, with the heap cap set, and the replica reads back with the Iceberg library. The heap
 * bound on metadata files must leave such a heap room for ordinary tables: a bound that reserved
 * the whole heap for the rest of the process refused every table's first metadata file.
 */
class SmallHeapReplicationTest {
  private static final String HEAP = "-Xmx256m";

  @Test
  void aTableReplicatesUnderTheDefaultHeapOfAOneGibContainer(@TempDir Path dir) throws Exception {
    ScenarioTable source = Scenario.APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS.write(dir);
    String target = Replication.targetFor(source, dir);

    String printed = replicate(dir, source.location(), target);

    assertThat(printed).as(printed).doesNotContain("larger than this process's heap holds");
    new ReplicaVerifier().verify(source, target);
  }

  /** {@code java -Xmx256m -cp <this test's class path> ReplicatorCli replicate …}: its output. */
  private static String replicate(Path dir, String source, String target) throws Exception {
    Path log = dir.resolve("replicate.log");
    Process process =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    HEAP,
                    "-cp",
                    System.getProperty("java.class.path"),
                    ReplicatorCli.class.getName(),
                    "replicate",
                    "--source",
                    source,
                    "--target",
                    target,
                    "--settle-time",
                    "0ms"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();
    String printed = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(printed).isZero();
    return printed;
  }
}
