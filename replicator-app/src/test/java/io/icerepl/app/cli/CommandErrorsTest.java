package io.icerepl.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors a new user meets first, each one line naming what and why in the words of the option
 * typed: a folder that is not a table, a count of zero, and a relative path, which is resolved
 * against the working directory instead of refused.
 */
class CommandErrorsTest {
  @TempDir Path dir;

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void aFolderThatIsNoTableIsSaidSo() {
    String missing = dir.resolve("no-such-table").toString();
    Run run = run("replicate", "--source", missing, "--target", dir.resolve("r").toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err().lines().toList())
        .singleElement()
        .asString()
        .contains("no *.metadata.json there")
        .contains("is " + missing + " an Iceberg table's location?");
  }

  @Test
  void aZeroCountNamesTheOptionTyped() {
    Run run = run("verify", "--target", dir.toString(), "--threads", "0");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("'--threads'").contains("must be at least 1, got 0");
    assertThat(run.err()).doesNotContain("parallelism");
    // the older name still works, and is the one named when it is the one typed
    Run older = run("verify", "--target", dir.toString(), "--parallelism", "0");
    assertThat(older.err()).contains("'--parallelism'").contains("must be at least 1, got 0");
  }

  @Test
  void aRelativePathIsTheTableUnderTheWorkingDirectory() {
    Path workingDirectory = Path.of("").toAbsolutePath();
    Path under = workingDirectory.resolve("target").resolve("relative-" + System.nanoTime());
    SourceTable source = SourceTable.create(under.resolve("source"), 2);
    source.append("a", 2);
    String relativeSource = workingDirectory.relativize(under.resolve("source")).toString();
    String relativeTarget = workingDirectory.relativize(under.resolve("replica")).toString();

    Run run =
        run(
            "replicate",
            "--source",
            relativeSource,
            "--target",
            relativeTarget,
            "--settle-time",
            "0ms");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("source             " + under.resolve("source"));
    assertThat(
            SourceTable.TABLES
                .load(under.resolve("replica").toString())
                .currentSnapshot()
                .snapshotId())
        .isEqualTo(source.table.currentSnapshot().snapshotId());
  }

  @Test
  void aMissingOptionIsTheErrorAndAPointerToHelpNotTheWholeHelp() {
    Run run = run("promote");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err().lines().toList())
        .as(run.err())
        .hasSizeLessThanOrEqualTo(3)
        .contains("error: Missing required option: '--target=<location>'")
        .contains("Run 'replicator promote --help' for usage.");
  }

  @Test
  void aMisspelledOptionIsNamedAloneNotItsValue() {
    Run run = run("replicate", "--sourse", "X", "--target", dir.resolve("r").toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).as(run.err()).contains("'--sourse'").doesNotContain("'X'");
    assertThat(run.err()).contains("--source");
    assertThat(run.err().lines().toList()).hasSizeLessThanOrEqualTo(4);
  }

  @Test
  void aTargetThatCannotBeCreatedSaysWhy() {
    // /proc takes no new folder, even from root
    assertThat(Path.of("/proc").toFile().mkdir()).isFalse();
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 2);

    Run run =
        run(
            "replicate",
            "--source",
            source.location,
            "--target",
            "/proc/nope",
            "--settle-time",
            "0ms");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err().lines().toList())
        .singleElement()
        .asString()
        .contains("/proc/nope")
        .containsIgnoringCase("no such file or directory")
        .doesNotEndWith(": /proc/nope");
  }

  @Test
  void aTargetUnderAFileSaysWhy() throws Exception {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 2);
    Path file = java.nio.file.Files.writeString(dir.resolve("a-file"), "not a folder");

    Run run =
        run(
            "replicate",
            "--source",
            source.location,
            "--target",
            file.resolve("replica").toString(),
            "--settle-time",
            "0ms");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err().lines().toList()).singleElement().asString().contains(file.toString());
    assertThat(run.err()).as(run.err()).containsIgnoringCase("not a directory");
  }
}
