package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two locations that are one table, or one inside the other, in whatever spelling: fail-back onto
 * the promoted table itself and a replica inside (or around) its source are refused before anything
 * is written, byte for byte.
 */
class OverlappingLocationsTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"file:", "file://", ""})
  void failBackOntoThePromotedTableItselfIsRefusedInAnySpelling(String scheme) {
    Path promotedDir = promotedReplica();
    Map<String, String> before = objects(dir);

    CliRun failback =
        CliRun.of(
            "failback",
            "--primary",
            promotedDir.toUri().toString(),
            "--old-source",
            scheme + promotedDir.toAbsolutePath() + "/");

    assertThat(failback.exit()).as(failback.out() + failback.err()).isNotZero();
    assertThat(failback.err())
        .contains("Cannot fail back table")
        .contains("it overlaps the promoted table")
        .contains("nothing was written");
    assertThat(objects(dir)).isEqualTo(before);
  }

  @Test
  void failBackIntoAFolderHoldingThePromotedTablesOwnMetadataIsRefused() throws IOException {
    Path promotedDir = promotedReplica();
    // the promoted table's files reached through a second name for its folder
    Path alias = Files.createSymbolicLink(dir.resolve("alias"), promotedDir);
    Map<String, String> before = objects(promotedDir);

    CliRun failback =
        CliRun.of(
            "failback",
            "--primary",
            promotedDir.toUri().toString(),
            "--old-source",
            alias.toAbsolutePath().toString());

    assertThat(failback.exit()).as(failback.out() + failback.err()).isNotZero();
    assertThat(failback.err())
        .contains("is the promoted table's own (its location is ")
        .contains("nothing was written");
    assertThat(objects(promotedDir)).isEqualTo(before);
  }

  @Test
  void failBackIntoAnotherTableIsRefusedBeforeItsStateIsWritten() {
    Path promotedDir = promotedReplica();
    SourceTable stranger = SourceTable.create(dir.resolve("stranger"), 2);
    stranger.append("s", 2);
    Map<String, String> before = objects(dir.resolve("stranger"));

    CliRun failback =
        CliRun.of(
            "failback",
            "--primary",
            promotedDir.toUri().toString(),
            "--old-source",
            stranger.location);

    assertThat(failback.exit()).as(failback.out() + failback.err()).isNotZero();
    assertThat(failback.err())
        .contains("its table-uuid " + stranger.table.uuid())
        .contains("it is another table")
        .contains("nothing was written");
    assertThat(objects(dir.resolve("stranger"))).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"inside", "around", "same"})
  void aReplicaOverlappingItsSourceIsRefused(String where) {
    SourceTable source = SourceTable.create(dir.resolve("lake").resolve("t"), 2);
    source.append("a", 3);
    Path sourceDir = dir.resolve("lake").resolve("t");
    String target =
        switch (where) {
          case "inside" -> "file://" + sourceDir.resolve("replica").toAbsolutePath();
          case "around" -> dir.resolve("lake").toAbsolutePath() + "/";
          default -> "file:" + sourceDir.toAbsolutePath();
        };
    Map<String, String> before = objects(dir);

    CliRun replicate = CliRun.of("replicate", "--source", source.location, "--target", target);

    assertThat(replicate.exit()).as(replicate.out() + replicate.err()).isNotZero();
    assertThat(replicate.err())
        .contains("Cannot replicate table " + source.location + " to " + target)
        .contains(
            switch (where) {
              case "inside" -> "the target lies inside the source's folder";
              case "around" -> "the target contains the source's folder";
              default -> "the target is the source itself";
            })
        .contains("nothing was written");
    assertThat(objects(dir)).isEqualTo(before);
  }

  /** A table replicated to {@code promoted} and promoted there. */
  private Path promotedReplica() {
    SourceTable source = SourceTable.create(dir.resolve("original"), 2);
    source.append("a", 4);
    Path promotedDir = dir.resolve("promoted");
    String promoted = promotedDir.toUri().toString();
    CliRun replicate = CliRun.of("replicate", "--source", source.location, "--target", promoted);
    assertThat(replicate.exit()).as(replicate.err()).isZero();
    CliRun promote = CliRun.of("promote", "--target", promoted, "--mode", "now");
    assertThat(promote.exit()).as(promote.err()).isZero();
    return promotedDir;
  }

  /** Every file under {@code root}, by path, as SHA-256 of its bytes. */
  private static Map<String, String> objects(Path root) {
    Map<String, String> objects = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        objects.put(root.relativize(file).toString(), sha256(Files.readAllBytes(file)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return objects;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
