package io.icerepl.app.engine.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.CliRun;
import io.icerepl.app.engine.SourceTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code promote --replica-version N}: a promotion decided on a replica version is refused once the
 * replica has moved on, so a retried or replayed request never promotes a table that changed since;
 * a rerun of the promotion it decided is answered as one.
 */
class PromoteDecidedOnTest {
  @TempDir Path dir;

  @Test
  void aPromotionDecidedOnAVersionTheReplicaLeftIsRefusedAndARerunOfTheRightOneIsNot()
      throws IOException {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    assertThat(CliRun.of("replicate", "--source", source.location, "--target", replica).exit())
        .isZero();
    source.append("b", 2);
    assertThat(CliRun.of("replicate", "--source", source.location, "--target", replica).exit())
        .isZero();
    long version = newestVersion();
    List<String> before = contents();

    CliRun stale =
        CliRun.of(
            "promote",
            "--target",
            replica,
            "--mode",
            "now",
            "--replica-version",
            Long.toString(version - 1));

    assertThat(stale.exit()).as(stale.out() + stale.err()).isNotZero();
    assertThat(stale.err())
        .contains(
            "the request was decided on replica version "
                + (version - 1)
                + ", but the replica is at version "
                + version)
        .contains("nothing was written");
    assertThat(contents()).isEqualTo(before);

    String decided = Long.toString(version);
    CliRun promoted =
        CliRun.of("promote", "--target", replica, "--mode", "now", "--replica-version", decided);
    assertThat(promoted.exit()).as(promoted.err()).isZero();
    CliRun rerun =
        CliRun.of("promote", "--target", replica, "--mode", "now", "--replica-version", decided);
    assertThat(rerun.exit()).as(rerun.err()).isZero();
    assertThat(rerun.out()).contains("already promoted at ");
    CliRun replayed =
        CliRun.of(
            "promote",
            "--target",
            replica,
            "--mode",
            "now",
            "--replica-version",
            Long.toString(version + 1));
    assertThat(replayed.exit()).isNotZero();
    assertThat(replayed.err()).contains("but the replica was promoted from version " + version);

    // a fail-back decided on another promotion than the table's: the original is left as it was
    List<String> original = contents(dir.resolve("source"));
    CliRun otherEpoch =
        CliRun.of(
            "failback", "--primary", replica, "--old-source", source.location, "--epoch", "2");
    assertThat(otherEpoch.exit()).as(otherEpoch.out()).isNotZero();
    assertThat(otherEpoch.err())
        .contains("the request was decided on promotion epoch 2, but the table is at epoch 1")
        .contains("nothing was written");
    assertThat(contents(dir.resolve("source"))).isEqualTo(original);
  }

  private long newestVersion() throws IOException {
    return files().stream()
        .filter(n -> n.matches("v\\d+\\.metadata\\.json"))
        .mapToLong(n -> Long.parseLong(n.substring(1, n.indexOf('.'))))
        .max()
        .orElseThrow();
  }

  /** Every file of the replica with a hash of its bytes. */
  private List<String> contents() throws IOException {
    return contents(dir.resolve("replica"));
  }

  private static List<String> contents(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      List<String> contents = new ArrayList<>();
      for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
        contents.add(file + " " + java.util.Arrays.hashCode(Files.readAllBytes(file)));
      }
      return contents;
    }
  }

  private List<String> files() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("replica").resolve("metadata"))) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }
}
