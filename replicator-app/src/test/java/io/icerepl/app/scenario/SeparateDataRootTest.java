package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica whose data lives under another root than its location: the user maps the source's data
 * folder there with {@code --map}. Iceberg reads the replica as the source at every snapshot; every
 * data and delete file is under the data root, every metadata file (versions, manifest lists,
 * manifests) under the replica location; the replica declares the data root as its {@code
 * write.data.path}, so an engine writing into it once promoted writes there too.
 */
class SeparateDataRootTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @TempDir Path dir;

  @Test
  void dataMappedToAnotherRootReadsAsTheSourceAndStaysThereAfterPromotion() {
    ScenarioTable source =
        ScenarioTable.create(
            "ROOTS",
            dir.resolve("wh/src/t").toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    String replica = dir.resolve("dr/meta/t").toString();
    String dataRoot = dir.resolve("dr/data/t").toString();
    String map = "--map=" + source.location() + "/data=" + dataRoot;

    DataFile first = source.append(source.row(1, "a", "x"), source.row(2, "b", "y")).get(0);
    source.append(source.row(3, "c", "x"));
    source.record();
    assertThat(run("replicate", "--source", source.location(), "--target", replica, map)).isZero();
    assertReplica(source, replica, dataRoot);

    // incrementally: a delete file and another append
    source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, first, 0));
    source.append(source.row(4, "d", "z"));
    source.record();
    assertThat(run("replicate", "--source", source.location(), "--target", replica, map)).isZero();
    assertReplica(source, replica, dataRoot);
    assertThat(run("verify", "--source", source.location(), "--target", replica)).isZero();

    // promoted, an engine writing into the replica writes under the data root
    assertThat(run("promote", "--target", replica, "--mode", "now")).isZero();
    Table promoted = verifier.load(replica);
    ScenarioTable writer = ScenarioTable.of("PROMOTED", replica, promoted);
    DataFile written = writer.append(writer.row(5, "e", "x")).get(0);
    assertThat(ReplicaVerifier.localPath(written.location())).startsWith(dataRoot + "/");
    Table reloaded = verifier.load(replica);
    assertThat(Rows.atSnapshot(reloaded, reloaded.currentSnapshot().snapshotId())).hasSize(4);
    assertMetadataUnder(reloaded, replica);

    // failed back, the original holds every snapshot of the promoted replica, its files its own;
    assertThat(run("failback", "--primary", replica, "--old-source", source.location())).isZero();
    Table original = verifier.load(source.location());
    assertThat(original.currentSnapshot().snapshotId())
        .isEqualTo(reloaded.currentSnapshot().snapshotId());
    for (Snapshot snapshot : reloaded.snapshots()) {
      assertThat(Rows.atSnapshot(original, snapshot.snapshotId()))
          .as("snapshot %s", snapshot.snapshotId())
          .isEqualTo(Rows.atSnapshot(reloaded, snapshot.snapshotId()));
    }
    // the data root's files return to the original's data folder, which it writes into again
    for (String file : contentFiles(original)) {
      assertThat(ReplicaVerifier.localPath(file)).startsWith(source.location() + "/data/");
    }
    assertThat(original.properties())
        .containsEntry(TableProperties.WRITE_DATA_LOCATION, source.location() + "/data");
  }

  private void assertReplica(ScenarioTable source, String replica, String dataRoot) {
    ReplicaVerifier.failIfAny(replica, verifier.readProblems(source.expectations(), replica));
    Table table = verifier.load(replica);
    assertThat(table.properties())
        .containsEntry(TableProperties.WRITE_DATA_LOCATION, dataRoot)
        .doesNotContainKey(TableProperties.WRITE_METADATA_LOCATION);
    List<String> contents = contentFiles(table);
    assertThat(contents).isNotEmpty();
    for (String file : contents) {
      assertThat(ReplicaVerifier.localPath(file)).as("content file").startsWith(dataRoot + "/");
      assertThat(Path.of(ReplicaVerifier.localPath(file))).isRegularFile();
    }
    assertMetadataUnder(table, replica);
    assertThat(Path.of(replica, "data")).as("the replica's own data folder").doesNotExist();
    try (Stream<Path> files = Files.walk(Path.of(dataRoot))) {
      assertThat(files.filter(Files::isRegularFile).map(Path::toString).toList())
          .as("files under the data root")
          .allMatch(p -> !p.endsWith(".json") && !p.endsWith(".avro"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every version file, manifest list and manifest lies under the replica's metadata folder. */
  private static void assertMetadataUnder(Table table, String replica) {
    String metadata = replica + "/metadata/";
    org.apache.iceberg.TableMetadata current = ((HasTableOperations) table).operations().current();
    assertThat(ReplicaVerifier.localPath(current.metadataFileLocation())).startsWith(metadata);
    for (var entry : current.previousFiles()) {
      assertThat(ReplicaVerifier.localPath(entry.file())).startsWith(metadata);
    }
    for (Snapshot snapshot : table.snapshots()) {
      assertThat(ReplicaVerifier.localPath(snapshot.manifestListLocation())).startsWith(metadata);
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        assertThat(ReplicaVerifier.localPath(manifest.path())).startsWith(metadata);
      }
    }
  }

  /** Every data and delete file any snapshot's manifests name. */
  private static List<String> contentFiles(Table table) {
    List<String> files = new ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        try (CloseableIterable<? extends ContentFile<?>> reader =
            manifest.content() == org.apache.iceberg.ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          reader.forEach(file -> files.add(file.location()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return files;
  }

  private static int run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    if (exit != 0) {
      System.err.println(String.join(" ", args) + ":\n" + out + err);
    }
    return exit;
  }
}
