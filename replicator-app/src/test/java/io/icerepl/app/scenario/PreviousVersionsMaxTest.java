package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A metadata-log shorter than {@code write.metadata.previous-versions-max} proves nothing when the
 * property was raised after the log was cut; the replicated file's time decides.
 */
class PreviousVersionsMaxTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @Test
  void raisingPreviousVersionsMaxWhileTheReplicaLagsIsAppliedAndARealRewindIsStillRefused(
      @TempDir Path dir) throws Exception {
    Path sourceDir = dir.resolve("source");
    ScenarioTable source =
        ScenarioTable.create(
            "PREVIOUS_VERSIONS_MAX",
            sourceDir.toUri().toString(),
            Scenario.SCHEMA,
            PartitionSpec.unpartitioned(),
            null,
            Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "2"));
    source.append(source.row(1, "a", "x"));
    source.record();
    String target = dir.resolve("replica").toUri().toString();
    Replication.replicate(source.location(), target);
    String replicated = sourceProperty(target, "replicator.source-metadata-file");

    // the replica lags while commits push the replicated file out of the two-entry log
    source.append(source.row(2, "b", "x"));
    source.append(source.row(3, "c", "y"));
    source.append(source.row(4, "d", "y"));
    assertThat(logNames(source)).hasSize(2).doesNotContain(replicated);
    // then the log is allowed to grow again: it is shorter than its maximum and still lacks the
    // file
    source
        .table()
        .updateProperties()
        .set(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "20")
        .commit();
    source.append(source.row(5, "e", "z"));
    source.record();
    assertThat(logNames(source)).hasSizeLessThan(20).doesNotContain(replicated);

    Replication.replicate(source.location(), target);
    verifier.verify(source, target);
    assertThat(sourceProperty(target, "replicator.source-metadata-file"))
        .isEqualTo(currentSourceFile(source));

    // a real rewind: the source folder is restored from a copy, after metadata-only commits that
    // keep the sequence number, so only the metadata-log can tell
    Path backup = dir.resolve("backup");
    copyTree(sourceDir, backup);
    source.table().updateProperties().set("owner", "someone").commit();
    source.table().updateProperties().set("owner", "someone else").commit();
    Replication.replicate(source.location(), target);
    deleteTree(sourceDir);
    copyTree(backup, sourceDir);

    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true),
            "replicate",
            "--source",
            source.location(),
            "--target",
            target);
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString())
        .contains("is not in its metadata-log; the source was rewound or replaced");
  }

  private static List<String> logNames(ScenarioTable source) {
    return metadata(source).previousFiles().stream()
        .map(e -> e.file().substring(e.file().lastIndexOf('/') + 1))
        .toList();
  }

  private static String currentSourceFile(ScenarioTable source) {
    String file = metadata(source).metadataFileLocation();
    return file.substring(file.lastIndexOf('/') + 1);
  }

  private static TableMetadata metadata(ScenarioTable source) {
    return IncrementalReplicationTest.metadata(source.table());
  }

  private String sourceProperty(String target, String key) {
    return verifier.load(target).properties().get(key);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : walk.toList()) {
        Path dest = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(p, dest);
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
