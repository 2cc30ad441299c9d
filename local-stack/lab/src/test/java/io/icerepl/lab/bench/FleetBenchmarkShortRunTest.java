package io.icerepl.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fleet benchmark, short: two service-jar processes share one queue over a few tables read from
 * a JDBC catalog on S3, and every replica is read back with Iceberg and checked against its source.
 * It is also the suite's only run of the shipped jar's catalog client over S3, whose class path the
 * tests' own does not show.
 */
class FleetBenchmarkShortRunTest {
  /** The service jar the reactor builds before the lab's tests run. */
  private static final Path SERVICE_JAR =
      Path.of("..", "..", "replicator-app", "target", "replicator-app.jar");

  @Test
  void twoServiceProcessesReplicateEveryCommitOnceAndInOrder() throws Exception {
    assertThat(SERVICE_JAR).isRegularFile();
    StringWriter out = new StringWriter();
    FleetBenchmark benchmark = new FleetBenchmark(new PrintWriter(out, true));

    boolean ok =
        benchmark.run(
            new FleetBenchmark.Settings(
                SERVICE_JAR.toAbsolutePath(),
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                4,
                1000,
                3,
                8,
                List.of(2),
                1,
                2,
                20));

    assertThat(ok).as(out.toString()).isTrue();
    assertThat(out.toString())
        .containsPattern("round 1, 2 instance\\(s\\): written [0-9.]+/s, replicated [0-9.]+/s")
        .containsPattern("exactly once, in order \\(\\d+ commits\\)")
        .contains("| lag p99 (ms) |");
  }
}
