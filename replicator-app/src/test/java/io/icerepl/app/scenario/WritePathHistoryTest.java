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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table whose write paths change over its life: {@code write.data.path} outside the location,
 * changed, hashed by the object-storage layout, then unset; {@code write.metadata.path} set; the
 * {@code location} itself moved. Manifests rewritten afterwards keep naming the old paths in
 * EXISTING entries, deletes in DELETED ones. Replicated incrementally after every change and as
 * one backfill at the end, with no {@code --map}.
 */
class WritePathHistoryTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @TempDir Path dir;

  @Test
  void everyDataPathTheTableEverWroteUnderReplicatesIncrementallyAndAsABackfill() {
    String dataA = dir.resolve("ext/data-a").toString();
    String dataB = dir.resolve("ext/data-b").toUri().toString();
    ScenarioTable source =
        ScenarioTable.create(
            "WRITE_PATHS",
            dir.resolve("source").toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2", TableProperties.WRITE_DATA_LOCATION, dataA));
    String incremental = dir.resolve("replica-incremental").toUri().toString();

    List<DataFile> first = source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));
    source.append(source.row(3, "c", "x"));
    replicateAndVerify(source, incremental);

    source.table().updateProperties().set(TableProperties.WRITE_DATA_LOCATION, dataB).commit();
    source.append(source.row(4, "d", "x"));
    // hashed folders under the data path
    source.table().updateProperties().set(TableProperties.OBJECT_STORE_ENABLED, "true").commit();
    source.append(source.row(5, "e", "z"), source.row(6, "f", "y"));
    replicateAndVerify(source, incremental);

    // the data path outside the location unset: new files under <location>/data
    source.table().updateProperties()
        .remove(TableProperties.WRITE_DATA_LOCATION)
        .remove(TableProperties.OBJECT_STORE_ENABLED)
        .commit();
    source.append(source.row(7, "g", "x"));
    // every manifest rewritten into one: its EXISTING entries name files under every old prefix
    source.table().rewriteManifests().rewriteIf(m -> true).commit();
    source.table().newDelete().deleteFile(first.get(0)).commit();
    source.append(source.row(8, "h", "y"));
    replicateAndVerify(source, incremental);

    // a backfill learns the old prefixes from the earlier metadata files its metadata-log names
    String backfill = dir.resolve("replica-backfill").toString();
    replicateAndVerify(source, backfill);

    assertThat(sourceDataFolders(source.table()))
        .as("the source wrote data under each prefix")
        .anyMatch(f -> f.startsWith(ReplicaVerifier.localPath(dataA) + "/"))
        .anyMatch(f -> f.startsWith(ReplicaVerifier.localPath(dataB) + "/"))
        .anyMatch(f -> f.startsWith(ReplicaVerifier.localPath(source.location()) + "/data/"));
    for (String replica : List.of(incremental, backfill)) {
      verifier.verify(source.expectations(), source.location(), List.of(dataA, dataB), replica);
      assertOneSourceFolderPerReplicaFolder(source.table(), verifier.load(replica));
    }
  }

  private void replicateAndVerify(ScenarioTable source, String target) {
    source.record();
    String head = ((HasTableOperations) source.table()).operations().current().metadataFileLocation();
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter()), new PrintWriter(err, true),
            "replicate", "--source", source.location(), "--target", target, "--source-metadata", head);
    assertThat(exit).as("replicate to %s: %s", target, err).isZero();
    verifier.verify(source, target);
  }

  /** Every data file's folder, in any snapshot. */
  private static Set<String> sourceDataFolders(Table table) {
    Set<String> folders = new TreeSet<>();
    dataFiles(table).values().forEach(path -> folders.add(folder(path)));
    return folders;
  }

  /**
   * Data files are named uniquely, so a replica file pairs with its source file by name: no
   * replica folder may hold files from two source folders.
   */
  private static void assertOneSourceFolderPerReplicaFolder(Table source, Table replica) {
    Map<String, String> sourceByName = dataFiles(source);
    Map<String, String> replicaByName = dataFiles(replica);
    assertThat(replicaByName.keySet()).isEqualTo(sourceByName.keySet());
    Map<String, Set<String>> sourceFoldersByReplicaFolder = new TreeMap<>();
    replicaByName.forEach(
        (name, path) ->
            sourceFoldersByReplicaFolder
                .computeIfAbsent(folder(path), f -> new TreeSet<>())
                .add(folder(sourceByName.get(name))));
    sourceFoldersByReplicaFolder.forEach(
        (replicaFolder, sourceFolders) ->
            assertThat(sourceFolders).as("source folders of replica folder %s", replicaFolder).hasSize(1));
  }

  private static String folder(String path) {
    String local = ReplicaVerifier.localPath(path);
    return local.substring(0, local.lastIndexOf('/'));
  }

  /** Data file name to its path, over every snapshot's manifests. */
  private static Map<String, String> dataFiles(Table table) {
    Map<String, String> byName = new HashMap<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (manifest.content() != ManifestContent.DATA) {
          continue;
        }
        try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
          for (DataFile file : reader) {
            String path = file.location();
            byName.put(path.substring(path.lastIndexOf('/') + 1), path);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return byName;
  }
}
