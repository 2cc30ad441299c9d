package io.icerepl.app.cli;

import io.icerepl.app.service.ReplicatorApplication;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
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
final class ServeCommand implements Callable<Integer> {

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  @Override
  public Integer call() throws InterruptedException {
    CountDownLatch closed = new CountDownLatch(1);
    SpringApplication application = new SpringApplication(ReplicatorApplication.class);
    application.addListeners(event -> {
      if (event instanceof ContextClosedEvent) {
        closed.countDown();
      }
    });
    ConfigurableApplicationContext context = application.run(springArgs.toArray(String[]::new));
    // main() exits the JVM when this returns: wait until the context closes (e.g. on SIGTERM)
    closed.await();
    return SpringApplication.exit(context);
  }
}
