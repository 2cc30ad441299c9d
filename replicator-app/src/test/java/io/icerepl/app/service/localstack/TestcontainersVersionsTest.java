package io.icerepl.app.service.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The Testcontainers core and its modules on the test class path come from one release: a module of
 * one release on the core of another fails only where Docker runs, far from this build.
 */
class TestcontainersVersionsTest {

  @Test
  void coreAndModulesShareOneVersion() throws URISyntaxException {
    String core = version(GenericContainer.class);
    assertThat(version(LocalStackContainer.class)).as("localstack module").isEqualTo(core);
    assertThat(version(Testcontainers.class)).as("junit-jupiter module").isEqualTo(core);
  }

  /** The version folder of the jar holding a class, as Maven lays out its repository. */
  private static String version(Class<?> type) throws URISyntaxException {
    Path jar = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    return jar.getParent().getFileName().toString();
  }
}
