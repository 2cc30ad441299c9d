package io.icerepl.copier;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The copier is plain Java that the service binds to; the framework stays in the app. */
class LayeringTest {
  private static final JavaClasses COPIER =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.icerepl.copier");

  @Test
  void copierKnowsNoSpring() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.copier..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.springframework..")
        .check(COPIER);
  }

  /** Each package builds only on those below it. */
  @Test
  void packagesFormNoCycles() {
    slices().matching("io.icerepl.copier.(**)").should().beFreeOfCycles().check(COPIER);
  }
}
