package io.icerepl.app.service.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedS3;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.io.ClassPathResource;

/**
 * The command line, the service and the deployment template put table leases under one prefix, so
 * that a {@code replicate} or {@code expire} by hand and the deployed service never work on one
 * table at once.
 */
class LockPrefixTest {
  private static final Path TEMPLATE = Path.of("..", "infra", "cloudformation", "replicator.yaml");

  @Test
  void theServiceDefaultsToTheTemplatesLockPrefix() throws IOException {
    S3Properties service = serviceProperties(Map.of());

    assertThat(S3Configuration.settings(service, Clock.systemUTC()).lockPrefix())
        .isEqualTo(templateLockPrefix().replaceAll("/+$", ""));
  }

  @Test
  void theCommandLineIsLockedOutOfATableTheDeployedServiceHolds() throws IOException {
    // the service as the template deploys it: REPLICATOR_S3_LOCKPREFIX is the LockPrefix parameter
    S3Properties deployed =
        serviceProperties(Map.of("replicator.s3.lock-prefix", templateLockPrefix()));
    String replica = "s3://replica/warehouse/ns/t";
    System.setProperty("aws.accessKeyId", EmbeddedS3.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", EmbeddedS3.SECRET_KEY);
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3ObjectStore service =
            S3ObjectStore.create(
                new S3Endpoint(
                    Optional.of(s3.endpoint()),
                    "us-east-1",
                    Optional.of(EmbeddedS3.ACCESS_KEY),
                    Optional.of(EmbeddedS3.SECRET_KEY),
                    true),
                S3Configuration.settings(deployed, Clock.systemUTC()),
                S3Resilience.defaults())) {
      s3.createBucket("source");
      s3.createBucket("replica");
      try (ObjectStore.Lock held = service.lock(replica)) {
        StringWriter err = new StringWriter();
        int code =
            ReplicatorCli.execute(
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true),
                "replicate",
                "--source",
                "s3://source/warehouse/ns/t",
                "--target",
                replica,
                "--endpoint",
                s3.endpoint().toString(),
                "--path-style");

        assertThat(code).isEqualTo(1);
        assertThat(err.toString())
            .contains(
                "Cannot lock table "
                    + replica
                    + ": locked by "
                    + java.lang.management.ManagementFactory.getRuntimeMXBean().getName()
                    + " until ");
      }
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }

  /** {@code replicator.s3} as the service binds it: application.yml, under {@code overrides}. */
  private static S3Properties serviceProperties(Map<String, String> overrides) throws IOException {
    List<ConfigurationPropertySource> sources = new ArrayList<>();
    sources.add(new MapConfigurationPropertySource(overrides));
    ConfigurationPropertySources.from(
            new YamlPropertySourceLoader()
                .load("application.yml", new ClassPathResource("application.yml")))
        .forEach(sources::add);
    return new Binder(sources).bindOrCreate("replicator.s3", S3Properties.class);
  }

  /** The Default of the template's LockPrefix parameter. */
  private static String templateLockPrefix() throws IOException {
    List<String> lines = Files.readAllLines(TEMPLATE);
    int parameter = lines.indexOf("  LockPrefix:");
    assertThat(parameter).as("LockPrefix parameter in %s", TEMPLATE).isNotNegative();
    return lines.subList(parameter + 1, lines.size()).stream()
        .takeWhile(line -> line.startsWith("    "))
        .filter(line -> line.trim().startsWith("Default:"))
        .map(line -> line.trim().substring("Default:".length()).trim())
        .findFirst()
        .orElseThrow();
  }
}
