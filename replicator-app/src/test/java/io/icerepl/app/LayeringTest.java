package io.icerepl.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

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
   * The lease is checked in one place: {@code LeasedReplica}, before each write it makes. A step
   * that writes elsewhere on the table's behalf (an S3 Batch Operations job) asks it too.
   */
  @Test
  void theLeaseIsCheckedOnlyByLeasedReplica() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.app..")
        .and()
        .doNotHaveFullyQualifiedName("io.icerepl.app.engine.replica.LeasedReplica")
        .should()
        .callMethod(io.icerepl.copier.store.ObjectStore.Lock.class, "checkHeld", String.class)
        .because(
            "io.icerepl.app.engine.replica.LeasedReplica is the one gateway for replica writes")
        .check(APP);
  }

  /**
   * The app walks parents only through the graph the parser checked ({@code
   * SnapshotGraph.ancestors}), finite by construction: no class of it reads a parent itself.
   */
  @Test
  void parentsAreWalkedOnlyThroughTheSnapshotGraph() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.app..")
        .should()
        .accessTargetWhere(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "Snapshot.parentSnapshotId()",
                access ->
                    access.getTargetOwner().isEquivalentTo(io.icerepl.merge.model.Snapshot.class)
                        && access.getName().equals("parentSnapshotId")))
        .because("io.icerepl.merge.model.SnapshotGraph is the one home of parent walks")
        .check(APP);
  }

  /**
   * Promotion, fencing and fail-back live in {@code engine.failover} and build on replication,
   * never the reverse: the replicator refuses a promoted replica ({@code engine.fence}) but knows
   * nothing of how one is promoted or failed back.
   */
  @Test
  void replicationKnowsNothingOfFailover() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.icerepl.app.engine",
            "io.icerepl.app.engine.catalog..",
            "io.icerepl.app.engine.fence..",
            "io.icerepl.app.engine.head..",
            "io.icerepl.app.engine.replica..",
            "io.icerepl.app.engine.replication..",
            "io.icerepl.app.engine.retention..",
            "io.icerepl.app.engine.verify..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.icerepl.app.engine.failover..")
        .check(APP);
  }

  /**
   * No package of the app reaches back to one that reaches it (engine → promote → catalog → engine
   * was one): each layer can be read, tested and changed from the bottom up.
   */
  @Test
  void packagesFormNoCycles() {
    slices().matching("io.icerepl.app.(**)").should().beFreeOfCycles().check(APP);
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

  /**
   * Replica writes go through {@code LeasedReplica}, which checks the table's lease before each:
   * nothing else in the app publishes a metadata version, writes a version hint or deletes objects
   * (a failed commit's copies included: the copier hands them to {@code
   * LeasedReplica.removeFailedCopies}), so the next writer cannot forget the lease.
   */
  @Test
  void theAppWritesToReplicasOnlyThroughLeasedReplica() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.app..")
        .and()
        .doNotHaveFullyQualifiedName("io.icerepl.app.engine.replica.LeasedReplica")
        .and()
        .doNotHaveFullyQualifiedName("io.icerepl.app.engine.replica.ReplicaFiles")
        .should()
        .callMethodWhere(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "a MetadataPublisher method or an ObjectStore delete",
                call ->
                    call.getTargetOwner()
                            .isEquivalentTo(io.icerepl.copier.publish.MetadataPublisher.class)
                        || (call.getTargetOwner()
                                .isAssignableTo(io.icerepl.copier.store.ObjectStore.class)
                            && (call.getName().equals("deleteAll")
                                || call.getName().equals("delete")))))
        .orShould()
        .callConstructor(
            io.icerepl.copier.publish.MetadataPublisher.class,
            io.icerepl.copier.store.ObjectStore.class)
        .because("io.icerepl.app.engine.replica.LeasedReplica checks the lease before every write")
        .check(APP);
  }

  /**
   * No placement outside the replica: every delete of replica files goes through {@code
   * LeasedReplica.deleteAll} (above), which asks {@code ReplicaDomain} first; every copy goes
   * through {@code PlanExecutor}, which takes only a {@code ReplicaDomain.Placement} (the copier's
   * own rule keeps it checking each file).
   */
  @Test
  void everyDeleteOfReplicaFilesIsCheckedByReplicaDomain() {
    methods()
        .that()
        .areDeclaredIn(io.icerepl.app.engine.replica.LeasedReplica.class)
        .and()
        .haveName("deleteAll")
        .should(
            new com.tngtech.archunit.lang.ArchCondition<
                com.tngtech.archunit.core.domain.JavaMethod>("call ReplicaDomain.checkDeletes") {
              @Override
              public void check(
                  com.tngtech.archunit.core.domain.JavaMethod method,
                  com.tngtech.archunit.lang.ConditionEvents events) {
                boolean checks =
                    method.getMethodCallsFromSelf().stream()
                        .anyMatch(
                            c ->
                                c.getTargetOwner()
                                        .isEquivalentTo(io.icerepl.merge.path.ReplicaDomain.class)
                                    && c.getName().equals("checkDeletes"));
                if (!checks) {
                  events.add(
                      com.tngtech.archunit.lang.SimpleConditionEvent.violated(
                          method, method.getFullName() + " deletes without ReplicaDomain"));
                }
              }
            })
        .check(APP);
  }

  /**
   * The replica's state is written in one place, {@code LeasedReplica}, conditionally on the state
   * it read under the lease: nothing else in the app serialises a state or makes a conditional
   * replace, so no writer can land a state over one another run wrote since.
   */
  @Test
  void theStateIsWrittenOnlyByLeasedReplicaConditionallyOnWhatItReplaces() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.app..")
        .and()
        .doNotHaveFullyQualifiedName("io.icerepl.app.engine.replica.LeasedReplica")
        .should()
        .callMethodWhere(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "ReplicaStateParser.toJson or ObjectStore.replaceIf",
                call ->
                    (call.getTargetOwner()
                                .isEquivalentTo(io.icerepl.merge.state.ReplicaStateParser.class)
                            && call.getName().equals("toJson"))
                        || (call.getTargetOwner()
                                .isAssignableTo(io.icerepl.copier.store.ObjectStore.class)
                            && call.getName().equals("replaceIf"))))
        .because(
            "io.icerepl.app.engine.replica.LeasedReplica writes the state only over the version it"
                + " read under the lease")
        .check(APP);
  }
}
