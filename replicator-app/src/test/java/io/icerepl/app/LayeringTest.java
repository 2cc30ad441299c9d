package io.icerepl.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The engine is plain Java shared by the CLI and the service; both bind to it, never the reverse.
 */
class LayeringTest {
  private static final JavaClasses APP =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.icerepl.app");

  @Test
  void engineKnowsNoSpringNorServiceNorCli() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.app.engine..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..", "io.icerepl.app.service..", "io.icerepl.app.cli..")
        // an engine package without classes breaks no layering
        .allowEmptyShould(true)
        .check(APP);
  }

  /**
   * Locations are compared as {@code TableLocation}s: the app builds no canonical form of its own
   * to compare, so the next comparison cannot forget a spelling.
   */
  @Test
  void theAppComparesLocationsOnlyThroughTableLocation() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.app..")
        .should()
        .callMethod(io.icerepl.merge.path.PathMapping.class, "canonical", String.class)
        .orShould()
        .callMethod(io.icerepl.merge.path.PathMapping.class, "sameFile", String.class, String.class)
        .because("io.icerepl.merge.path.TableLocation is the one identity of a location")
        .check(APP);
  }
}
