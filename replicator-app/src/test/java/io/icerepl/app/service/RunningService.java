package io.icerepl.app.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The service started as {@code replicator serve} would start it, on a free port, with the given
 * properties. Spring's JUnit extension is not used: Spring Framework 7's needs JUnit 6, and the
 * build pins JUnit 5.
 */
public final class RunningService implements AutoCloseable {
  /** The API token every service started here has, unless the test sets its own. */
  public static final String TOKEN = "test-token-0123456789";

  /**
   * The settle time of every service started here, unless the test sets its own: the tests' tables
   * have one writer each, so no newer file is ever left by a writer that lost its commit, and
   * waiting out the default 5 s on each commit would only make each case slower.
   */
  public static final String SETTLE_TIME = "PT0.2S";

  final ConfigurableApplicationContext context;

  /** Sends {@link #TOKEN}. */
  public final HttpJson http;

  /**
   * Tomcat's base directory, which it would otherwise create in the temporary directory and leave
   * behind: removed on {@link #close()}.
   */
  private final Path tomcatBase;

  private RunningService(ConfigurableApplicationContext context, Path tomcatBase) {
    this.context = context;
    this.tomcatBase = tomcatBase;
    this.http =
        new HttpJson(((WebServerApplicationContext) context).getWebServer().getPort(), TOKEN);
  }

  public static RunningService start(Map<String, String> properties) {
    return start(properties, Map.of());
  }

  /** Starts with extra singleton beans (e.g. an SDK interceptor that injects S3 faults). */
  public static RunningService start(Map<String, String> properties, Map<String, Object> beans) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    Path tomcatBase;
    try {
      tomcatBase = Files.createTempDirectory("replicator-tomcat-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    args.add("--server.tomcat.basedir=" + tomcatBase);
    if (properties.keySet().stream().noneMatch(k -> k.startsWith("replicator.api.token"))) {
      args.add("--replicator.api.token=" + TOKEN);
    }
    if (!properties.containsKey("replicator.settle-time")) {
      args.add("--replicator.settle-time=" + SETTLE_TIME);
    }
    properties.forEach((k, v) -> args.add("--" + k + "=" + v));
    SpringApplication application = new SpringApplication(ReplicatorApplication.class);
    application.addInitializers(
        context -> beans.forEach(context.getBeanFactory()::registerSingleton));
    try {
      return new RunningService(application.run(args.toArray(String[]::new)), tomcatBase);
    } catch (RuntimeException e) {
      delete(tomcatBase);
      throw e;
    }
  }

  <T> T bean(Class<T> type) {
    return context.getBean(type);
  }

  @Override
  public void close() {
    try {
      context.close();
    } finally {
      delete(tomcatBase);
    }
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return; // the server never made it, or it is gone already
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (java.nio.file.NoSuchFileException gone) {
      // removed while walked: nothing left to delete
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + dir, e);
    }
  }
}
