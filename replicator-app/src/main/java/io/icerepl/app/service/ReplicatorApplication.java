package io.icerepl.app.service;

import io.icerepl.app.service.config.InvalidConfigurationException;
import java.util.List;
import java.util.Optional;
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
    ConfigurableApplicationContext context;
    try {
      context = application.run(args.toArray(String[]::new));
    } catch (RuntimeException e) {
      throw configurationProblem(e).<RuntimeException>map(invalid -> invalid).orElse(e);
    }
    printWhereToLook(context);
    try (AutoCloseable running = alongside.apply(context)) {
      // main() exits the JVM when this returns: wait until the context closes
      closed.await();
    }
    return SpringApplication.exit(context);
  }

  /**
   * The configuration problem that stopped the start, wherever Spring wrapped it: the command line
   * reports it as a bad argument, with its own message.
   */
  private static Optional<InvalidConfigurationException> configurationProblem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidConfigurationException invalid) {
        return Optional.of(invalid);
      }
    }
    return Optional.empty();
  }

  /**
   * Where the running service answers, on stdout once it is ready: the status page, the status API
   * and what a client needs to be let in (never the token itself).
   */
  private static void printWhereToLook(ConfigurableApplicationContext context) {
    whereToLook(context).forEach(System.out::println);
    System.out.flush();
  }

  /** The lines {@link #printWhereToLook} prints. */
  static List<String> whereToLook(ConfigurableApplicationContext context) {
    if (!(context
        instanceof org.springframework.boot.web.server.context.WebServerApplicationContext web)) {
      return List.of();
    }
    String base = "http://localhost:" + web.getWebServer().getPort();
    org.springframework.core.env.Environment env = context.getEnvironment();
    boolean token =
        env.containsProperty("replicator.api.token")
            || env.containsProperty("replicator.api.token-secret-id");
    boolean publicStatus = env.getProperty("replicator.api.public-status", Boolean.class, false);
    String access =
        token
            ? publicStatus
                ? "the status answers everyone; promote, fail back and expire need the API token"
                : "send the API token: Authorization: Bearer <token>"
            : publicStatus
                ? "the status answers everyone; no API token is set, so promote, fail back and"
                    + " expire are refused (set replicator.api.token)"
                : "no API token is set: only /actuator/health and the status page answer (set"
                    + " replicator.api.token)";
    return List.of(
        "status page        " + base + "/",
        "status API         " + base + "/api/replications",
        "metrics            " + base + "/actuator/prometheus",
        "access             " + access);
  }
}
