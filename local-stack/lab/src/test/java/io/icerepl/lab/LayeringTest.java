package io.icerepl.lab;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The lab's packages (bench, campaign, cli, local) build on one another one way. */
class LayeringTest {
  private static final JavaClasses LAB =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.icerepl.lab");

  @Test
  void packagesFormNoCycles() {
    slices().matching("io.icerepl.lab.(**)").should().beFreeOfCycles().check(LAB);
  }
}
