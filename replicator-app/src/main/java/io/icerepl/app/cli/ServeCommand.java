package io.icerepl.app.cli;

import io.icerepl.app.service.ReplicatorApplication;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
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
public final class ServeCommand implements Callable<Integer> {

  @CommandLine.Unmatched List<String> springArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    return serve(springArgs, context -> () -> {});
  }

  /**
   * Runs the service with these Spring arguments until its context closes (e.g. on SIGTERM) and
   * returns its exit code; {@code alongside} starts whatever runs next to the service once its
   * context is up, and what it returns is closed when the service stops.
   */
  public static int serve(
      List<String> args, Function<ConfigurableApplicationContext, AutoCloseable> alongside)
      throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    SpringApplication application = new SpringApplication(ReplicatorApplication.class);
    application.addListeners(
        event -> {
          if (event instanceof ContextClosedEvent) {
            closed.countDown();
          }
        });
    ConfigurableApplicationContext context = application.run(args.toArray(String[]::new));
    try (AutoCloseable running = alongside.apply(context)) {
      // main() exits the JVM when this returns: wait until the context closes
      closed.await();
    }
    return SpringApplication.exit(context);
  }
}
