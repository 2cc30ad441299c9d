package io.icerepl.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabCliTest {

  @Test
  void theLabOffersServeWithItsLocalOptionsAndTheTooling() {
    assertThat(run("--help"))
        .contains("Usage: replicator-lab")
        .contains("serve", "demo", "check-orders", "benchmark", "campaign");
    assertThat(run("serve", "--help"))
        .contains("Usage: replicator-lab serve")
        .contains("--local", "--demo-interval");
    assertThat(run("benchmark", "--help"))
        .contains("incremental-cost", "backfill-throughput", "lag", "memory");
    assertThat(run("campaign", "--help")).contains("crash", "faults", "failover");
    // a '%' in a description is picocli's format: written %%, it prints once and warns of nothing
    java.io.PrintStream stderr = System.err;
    java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(warnings, true));
    try {
      assertThat(run("campaign", "faults", "--help").replaceAll("\\s+", " "))
          .contains("A 0 % baseline runs first.")
          .contains("(default: 3m)");
    } finally {
      System.setErr(stderr);
    }
    assertThat(warnings.toString()).doesNotContain("picocli WARN");
    assertThat(run("campaign", "failover", "--help"))
        .contains("--drills=<n>", "Default: 5", "--seed=<n>", "--work-dir=<folder>")
        .contains("replicator-app/target/replicator-app.jar");
    assertThat(run("campaign", "crash", "--help"))
        .contains("replicator-app/target/replicator-app.jar");
  }

  @Test
  void theDemoReplicatesItsTableAndFindsEverySnapshotEqual(@TempDir Path dir) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        LabCli.execute(new PrintWriter(out), new PrintWriter(err), "demo", "--dir", dir.toString());
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("replica matches the source at every snapshot")
        .contains("refs on the replica: [");
  }

  private static String run(String... args) {
    StringWriter out = new StringWriter();
    assertThat(LabCli.execute(new PrintWriter(out), new PrintWriter(new StringWriter()), args))
        .isZero();
    return out.toString();
  }
}
