package io.icerepl.copier;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.path.ReplicaDomain;
import java.util.List;
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

  /**
   * No placement outside the replica: the copier puts table files in place only through {@code
   * FileCopier} and {@code ManifestWriter}, which only {@code CopyRun} uses, and each step the run
   * accepts is checked against the {@code ReplicaDomain.Placement} it was given before any of its
   * files is put.
   */
  @Test
  void theCopierPlacesFilesOnlyWhereReplicaDomainAllows() {
    String run = "io.icerepl.copier.copy.CopyRun";
    List<String> writers =
        List.of("io.icerepl.copier.copy.FileCopier", "io.icerepl.copier.copy.ManifestWriter");
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.copier.copy..")
        .and(
            DescribedPredicate.describe(
                "are not " + writers, c -> !writers.contains(c.getFullName())))
        .should()
        .callMethodWhere(
            DescribedPredicate.describe(
                "an ObjectStore write",
                call ->
                    call.getTargetOwner().isAssignableTo(ObjectStore.class)
                        && List.of("write", "copyFrom", "createIfAbsent").contains(call.getName())))
        .because("PlanExecutor checks every file it places against the replica's domain")
        .check(COPIER);
    for (String writer : writers) {
      classes()
          .that()
          .haveFullyQualifiedName(writer)
          .should()
          .onlyBeAccessed()
          .byClassesThat(
              DescribedPredicate.describe(
                  "are " + run + " or " + writer,
                  c -> c.getFullName().equals(run) || c.getFullName().startsWith(writer)))
          .because("only the run, which checks each step first, puts files in place")
          .check(COPIER);
    }
    methods()
        .that()
        .areDeclaredInClassesThat()
        .haveFullyQualifiedName(run)
        .and()
        .haveName("accept")
        .should(callsWithin("checkPlaced", run))
        .check(COPIER);
    methods()
        .that()
        .areDeclaredInClassesThat()
        .haveFullyQualifiedName(run)
        .and()
        .haveName("checkPlaced")
        .should(callsWithin("check", ReplicaDomain.Placement.class.getName()))
        .check(COPIER);
  }

  /**
   * A failed commit's copies are removed only through the {@code PlanExecutor.Cleanup} the run is
   * given (the app's {@code LeasedReplica}, which deletes only while the replica's state is still
   * this run's): the executor deletes nothing on the replica itself.
   */
  @Test
  void thePlanExecutorDeletesOnlyThroughItsCleanup() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.copier.copy..")
        .should()
        .callMethodWhere(
            DescribedPredicate.describe(
                "an ObjectStore delete",
                call ->
                    call.getTargetOwner().isAssignableTo(ObjectStore.class)
                        && List.of("delete", "deleteAll").contains(call.getName())))
        .because("a paused run's cleanup must not delete what the run that took over published")
        .check(COPIER);
  }

  private static ArchCondition<JavaMethod> callsWithin(String method, String owner) {
    return new ArchCondition<>("call " + owner + "." + method) {
      @Override
      public void check(JavaMethod javaMethod, ConditionEvents events) {
        boolean calls =
            javaMethod.getMethodCallsFromSelf().stream()
                .anyMatch(
                    c ->
                        c.getName().equals(method)
                            && c.getTargetOwner().getFullName().equals(owner));
        if (!calls) {
          events.add(
              SimpleConditionEvent.violated(
                  javaMethod, javaMethod.getFullName() + " does not call " + owner + "." + method));
        }
      }
    };
  }

  /** Each package builds only on those below it. */
  @Test
  void packagesFormNoCycles() {
    slices().matching("io.icerepl.copier.(**)").should().beFreeOfCycles().check(COPIER);
  }
}
