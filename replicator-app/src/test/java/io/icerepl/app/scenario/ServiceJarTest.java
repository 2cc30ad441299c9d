package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.fixtures.JarCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The runnable service jar as it ships ({@code target/replicator-app.jar}, built before the tests
 * run): what it holds, and that it replicates every scenario as a process of its own, so a library
 * the service needs but the jar lacks shows here and not in production.
 */
class ServiceJarTest {
  private static final Path JAR = Path.of("target", "replicator-app.jar");

  /**
   * 180 MB while the jar carried the emulators and the lab; 97 MB without them, where Hadoop and
   * Parquet/ORC for the delete rewrite weigh most. The catalog clients add 30 MB: the Glue SDK (10
   * MB) and the SQLite driver with its native libraries (12 MB) are most of it. 117 MB since zstd
   * and snappy run in pure Java, without zstd-jni's and snappy-java's native libraries; 1.1 MB more
   * with the PostgreSQL driver. 2 MB more with the KMS and STS clients, which Iceberg's S3FileIO
   * loads whenever it opens: without them every catalog rule over S3 failed in this jar. 16 MB more
   * with the stores beyond S3: Azure's SDK (azure-core with Reactor, the Blob client,
   * azure-identity with MSAL and JNA) over the JDK's HTTP client, whose Netty client would have
   * added 18 MB of native TLS and QUIC libraries, and Google's Cloud Storage client (gax, its HTTP
   * client, protobuf).
   */
  private static final long MAX_BYTES = 141_500_000L;

  /**
   * Emulators, their runtimes, the lab and Iceberg's own data writers belong to tests and the lab
   * jar, and so do the native codec libraries that Iceberg's writers use. Iceberg's catalog clients
   * (api, core, aws) ship: they read catalogs and register replicas.
   */
  private static final List<String> FORBIDDEN_LIBRARIES =
      List.of(
          "s3proxy-",
          "elasticmq-",
          "scala-",
          "pekko-",
          "h2-",
          "jetty-",
          "iceberg-data-",
          "iceberg-parquet-",
          "iceberg-orc-",
          "iceberg-open-api-",
          "local-stack-",
          "replicator-lab-",
          "bcprov-",
          // native zstd and snappy: the delete and manifest rewrite uses pure-Java codecs
          "zstd-jni-",
          "snappy-java-");

  private static final List<String> FORBIDDEN_CLASSES =
      List.of(
          "io/icerepl/lab/",
          "io/icerepl/localstack/",
          "io/icerepl/app/bench/",
          "io/icerepl/app/campaign/",
          "io/icerepl/app/demo/",
          "io/icerepl/app/service/local/",
          "org/apache/iceberg/data/",
          "org/apache/iceberg/parquet/",
          "org/apache/iceberg/orc/",
          "org/gaul/",
          "org/elasticmq/",
          "scala/");

  @Test
  void holdsTheServiceAndNoEmulatorLabOrWriterClasses() throws IOException {
    assertThat(JAR).as("the service jar, built before the tests").isRegularFile();
    assertThat(Files.size(JAR)).as("bytes of %s", JAR).isLessThan(MAX_BYTES);
    List<String> found = new ArrayList<>();
    boolean hasCli = false;
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (JarEntry entry : jar.stream().toList()) {
        String name = entry.getName();
        hasCli |= name.equals("BOOT-INF/classes/io/icerepl/app/cli/ReplicatorCli.class");
        String library =
            name.startsWith("BOOT-INF/lib/") ? name.substring("BOOT-INF/lib/".length()) : "";
        String classPath =
            name.startsWith("BOOT-INF/classes/")
                ? name.substring("BOOT-INF/classes/".length())
                : name;
        if (FORBIDDEN_LIBRARIES.stream().anyMatch(library::startsWith)
            || FORBIDDEN_CLASSES.stream().anyMatch(classPath::startsWith)
            || name.equals("BOOT-INF/classes/application-local.yml")) {
          found.add(name);
        }
      }
    }
    assertThat(hasCli).as("the service's command line in the jar").isTrue();
    assertThat(found).as("entries of %s that only the lab or the tests need", JAR).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Scenario.class)
  void replicatesEveryScenarioAsItsOwnProcess(Scenario scenario, @TempDir Path dir)
      throws Exception {
    ScenarioTable source = scenario.write(dir);
    String target = Replication.targetFor(source, dir);
    Path log = dir.resolve("replicate.log");

    Process process =
        new ProcessBuilder(
                JarCommand.of(JAR, "replicate", "--source", source.location(), "--target", target))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("replicate finished").isTrue();
    assertThat(process.exitValue()).as(Files.readString(log, StandardCharsets.UTF_8)).isZero();

    new ReplicaVerifier().verify(source, target);
  }
}
