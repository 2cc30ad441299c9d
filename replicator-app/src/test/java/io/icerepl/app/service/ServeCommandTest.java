package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ServeCommandTest {

  @Test
  void theCommandLineOffersServeWithItsHelp() {
    StringWriter out = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out), new PrintWriter(new StringWriter()), "serve", "--help");
    assertThat(exit).isZero();
    assertThat(out.toString()).contains("Usage: replicator serve").contains("Runs the replication service");
  }
}
