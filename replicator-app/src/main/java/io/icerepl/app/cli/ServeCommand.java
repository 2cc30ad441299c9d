package io.icerepl.app.cli;

import io.icerepl.app.service.ReplicatorApplication;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code serve}: runs the replication service until it is stopped. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the replication service: reconciliation, SQS event intake, retention schedule, status API,",
      "metrics and health. Every other argument goes to Spring, e.g. --spring.config.additional-location=",
      "file:replicator.yml or --server.port=8081."
    })
public final class ServeCommand implements Callable<Integer> {

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  // The command line reflects on every command's methods at start-up: none of them names a Spring
  // type, so replicate, expire and the others load no Spring class.
  @Override
  public Integer call() throws Exception {
    return ReplicatorApplication.serve(springArgs);
  }
}
