package io.icerepl.merge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.SnapshotGraph;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.time.temporal.Temporal;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The merge library is pure: no cloud SDK, no framework, no file system; bytes come in. */
class LayeringTest {
  private static final JavaClasses MERGE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.icerepl.merge");

  @Test
  void mergeKnowsNoAwsSdk() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.merge..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("software.amazon..")
        .check(MERGE);
  }

  @Test
  void mergeKnowsNoSpring() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.merge..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.springframework..")
        .check(MERGE);
  }

  /** Each package builds only on those below it: the rules of failover on merge and model. */
  @Test
  void packagesFormNoCycles() {
    slices().matching("io.icerepl.merge.(**)").should().beFreeOfCycles().check(MERGE);
  }

  /**
   * Parents are walked only through the graph the parser checked ({@code SnapshotGraph.ancestors},
   * finite by construction), so a history that loops is refused once, where it is read. Reading one
   * entry's own parent is no walk: the merge compares a snapshot's source and replica entries field
   * by field, and an added snapshot names its parent to the copy planner.
   */
  @Test
  void parentsAreWalkedOnlyThroughTheSnapshotGraph() {
    noClasses()
        .that()
        .doNotBelongToAnyOf(SnapshotGraph.class, Snapshot.class, MergeResult.AddedSnapshot.class)
        .and()
        .doNotHaveFullyQualifiedName("io.icerepl.merge.merge.SnapshotUnion")
        .should()
        .accessTargetWhere(readsTheParent())
        .because("io.icerepl.merge.model.SnapshotGraph is the one home of parent walks")
        .check(MERGE);
  }

  /** A call of {@code Snapshot.parentSnapshotId()} or a reference to it ({@code ::}). */
  private static DescribedPredicate<JavaAccess<?>> readsTheParent() {
    return DescribedPredicate.describe(
        "Snapshot.parentSnapshotId()",
        access ->
            access.getTargetOwner().isEquivalentTo(Snapshot.class)
                && access.getName().equals("parentSnapshotId"));
  }

  /**
   * Time is passed in: a clock read inside the merge would make its decisions depend on when they
   * run, and untestable without waiting.
   */
  @Test
  void mergeReadsNoClock() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.merge..")
        .should()
        .callMethodWhere(readsTheClock())
        .because("the caller passes the time in, so every decision can be tested without a clock")
        .check(MERGE);
  }

  /**
   * {@code System.currentTimeMillis()} and {@code nanoTime()}, {@code Clock.systemUTC()} and its
   * kin, and {@code now()} of any {@code java.time} type ({@code Instant}, {@code LocalDateTime},
   * ...).
   */
  private static DescribedPredicate<JavaMethodCall> readsTheClock() {
    Set<String> systemClocks = Set.of("currentTimeMillis", "nanoTime");
    Set<String> clockFactories = Set.of("systemUTC", "systemDefaultZone", "system");
    return DescribedPredicate.describe(
        "a clock read (System.currentTimeMillis/nanoTime, Clock.system*, java.time *.now())",
        call -> {
          JavaClass owner = call.getTargetOwner();
          String name = call.getName();
          return owner.isEquivalentTo(System.class) && systemClocks.contains(name)
              || owner.isEquivalentTo(Clock.class) && clockFactories.contains(name)
              || name.equals("now")
                  && (owner.getPackageName().startsWith("java.time")
                      || owner.isAssignableTo(Temporal.class));
        });
  }

  @Test
  void mergeTouchesNoFileSystem() {
    noClasses()
        .that()
        .resideInAPackage("io.icerepl.merge..")
        .should()
        .dependOnClassesThat(fileSystemCode())
        .check(MERGE);
  }

  /**
   * java.nio.file and the java.io file classes, except {@link NoSuchFileException}: object stores
   * signal an absent object with it, so recognising one is part of reading bytes handed in, not
   * file-system access.
   */
  private static DescribedPredicate<JavaClass> fileSystemCode() {
    return JavaClass.Predicates.resideInAPackage("java.nio.file..")
        .and(DescribedPredicate.not(JavaClass.Predicates.equivalentTo(NoSuchFileException.class)))
        .or(
            JavaClass.Predicates.belongToAnyOf(
                File.class, FileInputStream.class, FileOutputStream.class, RandomAccessFile.class))
        .as("are file-system code (java.nio.file, java.io.File and its streams)");
  }
}
