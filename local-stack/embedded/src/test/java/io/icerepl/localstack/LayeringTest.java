package io.icerepl.localstack;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The embedded S3 and SQS and the source tables on them stand in for AWS and for the writers the
 * replicator follows: they know nothing of the replicator, so its tests cannot lean on its own code
 * to build what they check it against.
 */
class LayeringTest {
  private static final JavaClasses LOCAL_STACK =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.icerepl.localstack");

  @Test
  void localStackKnowsNoReplicatorModule() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.localstack..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.icerepl.app..", "io.icerepl.copier..", "io.icerepl.merge..")
        .check(LOCAL_STACK);
  }

  /** One package today, so nothing to check yet; the rule holds once the module splits. */
  @Test
  void packagesFormNoCycles() {
    slices()
        .matching("io.icerepl.localstack.(**)")
        .should()
        .beFreeOfCycles()
        .allowEmptyShould(true)
        .check(LOCAL_STACK);
  }
}
