package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.logging.Redaction;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ServeCommandTest {

  @Test
  void theCommandLineOffersServeWithItsHelp() {
    StringWriter out = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out), new PrintWriter(new StringWriter()), "serve", "--help");
    assertThat(exit).isZero();
    assertThat(out.toString())
        .contains("Usage: replicator serve")
        .contains("Runs the replication service");
  }

  @Test
  void theServiceJarOffersNoEmulatorsOrLabCommands() {
    StringWriter serve = new StringWriter();
    ReplicatorCli.execute(
        new PrintWriter(serve), new PrintWriter(new StringWriter()), "serve", "--help");
    assertThat(serve.toString()).doesNotContain("--local").doesNotContain("--demo-interval");
    StringWriter commands = new StringWriter();
    ReplicatorCli.execute(new PrintWriter(commands), new PrintWriter(new StringWriter()), "--help");
    assertThat(commands.toString())
        .contains("replicate", "expire", "serve")
        .doesNotContain("demo")
        .doesNotContain("benchmark")
        .doesNotContain("campaign");
  }

  @Test
  void anUnknownOptionIsRefusedBeforeTheServiceStarts() {
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter()), new PrintWriter(err, true), "serve", "--local");
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        // the error line goes through the process's redaction, which masks every secret a test of
        // this JVM configured before (the embedded S3's access key is "local")
        .contains(Redaction.apply("Unknown option '--local' for serve"))
        .contains("--name=value")
        .contains("lab jar");
  }

  @Test
  void aBareWordOrAnOptionWithoutValueIsRefusedToo() {
    for (String arg : new String[] {"replicator.yml", "--server.port", "-x=1"}) {
      StringWriter err = new StringWriter();
      int exit =
          ReplicatorCli.execute(
              new PrintWriter(new StringWriter()), new PrintWriter(err, true), "serve", arg);
      assertThat(exit).as(arg).isEqualTo(2);
      assertThat(err.toString())
          .as(arg)
          .contains(Redaction.apply("Unknown option '" + arg + "' for serve"));
    }
  }
}
