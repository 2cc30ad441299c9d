package io.icerepl.app.service;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The long-running replication service; {@code replicator serve} starts it. */
// No users and passwords: the API authenticates a bearer token (service.security).
@SpringBootApplication(exclude = UserDetailsServiceAutoConfiguration.class)
@EnableScheduling
public class ReplicatorApplication {

  public static void main(String[] args) {
    SpringApplication.run(ReplicatorApplication.class, args);
  }

  /** Runs the service with these Spring arguments until its context closes; see below. */
  public static int serve(List<String> args) throws Exception {
    return serve(args, context -> () -> {});
  }

  /**
   * Runs the service with these Spring arguments until its context closes (e.g. on SIGTERM) and
   * returns its exit code; {@code alongside} starts whatever runs next to the service once its
   * context is up, and what it returns is closed when the service stops.
   */
  // Here and not in the serve command: the command line's classes name no Spring type, so the
  // one-shot commands load none.
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
