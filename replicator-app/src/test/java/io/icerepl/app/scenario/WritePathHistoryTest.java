package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.merge.path.SourcePrefixes;
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
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.BaseTable;
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
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table whose write paths change over its life: {@code write.data.path} outside the location,
 * changed, hashed by the object-storage layout, then unset; {@code write.metadata.path} set and
 * unset; the {@code location} itself moved; compressed metadata, old files deleted by the source.
 * Manifests rewritten afterwards keep naming the old paths in EXISTING entries, deletes in DELETED
 * ones. Replicated incrementally after every change and as one backfill at the end, with no {@code
 * --map}.
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
            Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.WRITE_DATA_LOCATION, dataA,
                TableProperties.METADATA_COMPRESSION, "gzip"));
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
    source
        .table()
        .updateProperties()
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

    assertThat(metadataFiles(source.location()))
        .isNotEmpty()
        .allMatch(n -> n.matches("v\\d+\\.gz\\.metadata\\.json"));
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

  /**
   * A catalog's table: metadata files {@code <N>-<uuid>.gz.metadata.json}, only the newest and one
   * previous kept ({@code write.metadata.delete-after-commit.enabled}, {@code
   * previous-versions-max=1}), while its data path, metadata path and location change between the
   * replicator's runs.
   */
  @Test
  void aMovingTableThatDeletesItsOldCompressedMetadataReplicatesIncrementally() {
    String location = dir.resolve("wh/ns/orders").toString();
    String dataA = dir.resolve("ext/data-a").toString();
    String metadataB = dir.resolve("ext/meta-b").toString();
    String moved = dir.resolve("moved/orders").toString();
    Table table =
        PointerTableOperations.create(
            location,
            Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.METADATA_COMPRESSION, "gzip",
                TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
                TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1",
                TableProperties.WRITE_DATA_LOCATION, dataA));
    ScenarioTable source = ScenarioTable.of("MOVING", location, table);
    String incremental = dir.resolve("replica-incremental").toString();

    source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));
    source.append(source.row(3, "c", "x"));
    replicateAndVerify(source, incremental, "--source-metadata", headFile(source));

    source
        .table()
        .updateProperties()
        .set(TableProperties.WRITE_METADATA_LOCATION, metadataB)
        .commit();
    source.append(source.row(4, "d", "z"));
    source.append(source.row(5, "e", "x"));
    replicateAndVerify(source, incremental, "--source-metadata", headFile(source));

    source.table().updateLocation().setLocation(moved).commit();
    source
        .table()
        .updateProperties()
        .remove(TableProperties.WRITE_DATA_LOCATION)
        .remove(TableProperties.WRITE_METADATA_LOCATION)
        .commit();
    source.append(source.row(6, "f", "y"));
    source.table().rewriteManifests().rewriteIf(m -> true).commit();
    source.append(source.row(7, "g", "z"));
    replicateAndVerify(source, incremental, "--source-metadata", headFile(source));

    String head = headFile(source);
    assertThat(head).startsWith(moved + "/metadata/").endsWith(".gz.metadata.json");
    assertThat(metadataFiles(moved)).as("metadata files kept by the source").hasSize(2);
    List<String> sourcePrefixes = List.of(dataA, metadataB, moved);
    verifier.verify(source.expectations(), location, sourcePrefixes, incremental);
    assertOneSourceFolderPerReplicaFolder(source.table(), verifier.load(incremental));

    // a backfill has only the newest two versions: nothing left declares the first prefixes
    String backfill = dir.resolve("replica-backfill").toString();
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err, true),
            "replicate",
            "--source",
            location,
            "--target",
            backfill,
            "--source-metadata",
            head);
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString())
        .startsWith("error: Cannot map path " + location + "/metadata/snap-")
        .contains(
            "no version of the table's metadata declares a prefix holding it: map one with --map")
        .contains("--map " + location + "/metadata=" + backfill + "/data/");
    assertThat(Path.of(backfill, "metadata")).doesNotExist();

    replicateAndVerify(
        source,
        backfill,
        "--source-metadata",
        head,
        "--map",
        location + "=" + backfill + "/earlier-location",
        "--map",
        dataA + "=" + backfill + "/earlier-data",
        "--map",
        metadataB + "=" + backfill + "/earlier-metadata");
    verifier.verify(source.expectations(), location, sourcePrefixes, backfill);
    assertOneSourceFolderPerReplicaFolder(source.table(), verifier.load(backfill));
  }

  /**
   * The same loss of earlier metadata, backfilled to a location that mirrors the source's ({@code
   * <dir>/src/wh/ns/orders} to {@code <dir>/dst/wh/ns/orders}): the files under the data path no
   * kept version declares keep their layout below the undeclared root {@code <dir>/src} in that
   * root's folder inside the replica ({@code <replica>/data/<name>}), never beside the replica; the
   * output says so, the replica's state records it, and a later incremental run maps alike.
   */
  @Test
  void aBackfillToAMirroredLocationPlacesWhatNoKeptVersionDeclaresInsideTheReplica()
      throws IOException {
    String location = dir.resolve("src/wh/ns/orders").toString();
    String dataA = dir.resolve("src/ext/data-a").toString();
    Table table =
        PointerTableOperations.create(
            location,
            Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
                TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1",
                TableProperties.WRITE_DATA_LOCATION, dataA));
    ScenarioTable source = ScenarioTable.of("MIRRORED", location, table);
    source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));
    source.append(source.row(3, "c", "x"));
    source.table().updateProperties().remove(TableProperties.WRITE_DATA_LOCATION).commit();
    source.append(source.row(4, "d", "z"));
    source.append(source.row(5, "e", "x"));
    source.record();

    String replica = dir.resolve("dst/wh/ns/orders").toString();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "replicate",
            "--source",
            location,
            "--target",
            replica,
            "--source-metadata",
            headFile(source));

    assertThat(exit).as("replicate: %s", err).isZero();
    String srcRoot = dir.resolve("src").toString();
    String dstRoot = SourcePrefixes.replicaFolderFor(replica, srcRoot);
    assertThat(dstRoot).startsWith(replica + "/data/");
    assertThat(out.toString()).contains("mirrored prefix    " + srcRoot + " -> " + dstRoot);
    String state =
        Files.readString(Path.of(io.icerepl.copier.publish.ReplicaLayout.stateFile(replica)));
    assertThat(state).contains("\"mirror-prefixes\"").contains(srcRoot).contains(dstRoot);
    assertReadsAsSourceWithEveryFileMirrored(source, replica, srcRoot, dstRoot);

    // the next run uses the recorded mirror and says nothing more about it
    source.append(source.row(6, "f", "y"));
    source.record();
    StringWriter again = new StringWriter();
    exit =
        ReplicatorCli.execute(
            new PrintWriter(again, true),
            new PrintWriter(err, true),
            "replicate",
            "--source",
            location,
            "--target",
            replica,
            "--source-metadata",
            headFile(source));
    assertThat(exit).as("replicate again: %s", err).isZero();
    assertThat(again.toString()).contains("versions applied   1").doesNotContain("mirrored");
    assertReadsAsSourceWithEveryFileMirrored(source, replica, srcRoot, dstRoot);
  }

  /**
   * A replica an earlier release made recorded the mirror of the two locations' roots ({@code
   * <dir>/src -> <dir>/dst}), which placed files beside the replica: the next run refuses, writing
   * nothing, and names the {@code --map} to give; with it, replication goes on and the files stay
   * where they are.
   */
  @Test
  void aMirrorAnEarlierReleaseRecordedBesideTheReplicaTakesAnExplicitMap() throws IOException {
    String location = dir.resolve("src/wh/ns/orders").toString();
    Table table =
        PointerTableOperations.create(
            location,
            Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
                TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1",
                TableProperties.WRITE_DATA_LOCATION, dir.resolve("src/ext/data-a").toString()));
    ScenarioTable source = ScenarioTable.of("FORMERLY_MIRRORED", location, table);
    source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));
    source.table().updateProperties().remove(TableProperties.WRITE_DATA_LOCATION).commit();
    source.append(source.row(3, "c", "z"));
    source.append(source.row(4, "d", "x"));
    source.record();
    String srcRoot = dir.resolve("src").toString();
    String dstRoot = dir.resolve("dst").toString();
    String formerMap = srcRoot + "=" + dstRoot;
    String replica = dir.resolve("dst/wh/ns/orders").toString();
    // placed as the earlier release placed them, then recorded as its mirror
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true),
            "replicate",
            "--source",
            location,
            "--target",
            replica,
            "--map",
            formerMap,
            "--source-metadata",
            headFile(source));
    assertThat(exit).as("replicate: %s", err).isZero();
    Path stateFile = Path.of(io.icerepl.copier.publish.ReplicaLayout.stateFile(replica));
    ObjectNode state = (ObjectNode) JSON.readTree(stateFile.toFile());
    state.putArray("mirror-prefixes").addObject().put("source", srcRoot).put("target", dstRoot);
    JSON.writeValue(stateFile.toFile(), state);
    byte[] stateBefore = Files.readAllBytes(stateFile);

    source.append(source.row(5, "e", "y"));
    source.record();
    StringWriter refused = new StringWriter();
    exit =
        ReplicatorCli.execute(
            new PrintWriter(refused, true),
            new PrintWriter(refused, true),
            "replicate",
            "--source",
            location,
            "--target",
            replica,
            "--source-metadata",
            headFile(source));

    assertThat(exit).as("replicate without --map: %s", refused).isNotZero();
    assertThat(refused.toString())
        .contains(
            "Cannot place files of "
                + srcRoot
                + " under "
                + dstRoot
                + " as the mirror mapping in the state of replica "
                + replica)
        .contains("--map " + formerMap + " (where earlier runs put them)");
    assertThat(Files.readAllBytes(stateFile)).isEqualTo(stateBefore);

    exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true),
            "replicate",
            "--source",
            location,
            "--target",
            replica,
            "--map",
            formerMap,
            "--source-metadata",
            headFile(source));
    assertThat(exit).as("replicate with --map: %s", err).isZero();
    ReplicaVerifier.failIfAny(replica, verifier.readProblems(source.expectations(), replica));
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private void assertReadsAsSourceWithEveryFileMirrored(
      ScenarioTable source, String replica, String srcRoot, String dstRoot) {
    ReplicaVerifier.failIfAny(replica, verifier.readProblems(source.expectations(), replica));
    Map<String, String> sourceFiles = dataFiles(source.table());
    Map<String, String> replicaFiles = dataFiles(verifier.load(replica));
    assertThat(replicaFiles.keySet()).isEqualTo(sourceFiles.keySet());
    String location = ReplicaVerifier.localPath(source.location());
    replicaFiles.forEach(
        (name, path) -> {
          String local = ReplicaVerifier.localPath(path);
          String sourceFile = ReplicaVerifier.localPath(sourceFiles.get(name));
          // the location's own files under the replica location, the rest below the root's folder
          String expected =
              sourceFile.startsWith(location + "/")
                  ? ReplicaVerifier.localPath(replica) + sourceFile.substring(location.length())
                  : dstRoot + sourceFile.substring(srcRoot.length());
          assertThat(local)
              .as("replica file %s", name)
              .isEqualTo(expected)
              .satisfies(p -> assertThat(Path.of(p)).isRegularFile());
        });
    assertThat(replicaFiles.values())
        .as("files no version declares, below the root's folder")
        .anyMatch(p -> ReplicaVerifier.localPath(p).startsWith(dstRoot + "/"));
  }

  /**
   * A catalog's table operations reduced to their pointer: metadata files written by Iceberg's
   * metastore code ({@code <N>-<uuid>.metadata.json} under the location or {@code
   * write.metadata.path}, old ones deleted as the properties say), the current one held in memory
   * as a catalog would hold it. Unlike Hadoop tables, it can move its location.
   */
  static final class PointerTableOperations extends BaseMetastoreTableOperations {
    private final FileIO io = new HadoopFileIO(new Configuration());
    private String pointer;

    static Table create(String location, Map<String, String> properties) {
      PointerTableOperations ops = new PointerTableOperations();
      PartitionSpec spec = PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build();
      ops.commit(
          null,
          org.apache.iceberg.TableMetadata.newTableMetadata(
              Scenario.SCHEMA, spec, location, properties));
      return new BaseTable(ops, "catalog.ns.orders");
    }

    @Override
    protected void doRefresh() {
      refreshFromMetadataLocation(pointer);
    }

    @Override
    protected void doCommit(
        org.apache.iceberg.TableMetadata base, org.apache.iceberg.TableMetadata metadata) {
      String file = writeNewMetadataIfRequired(base == null, metadata);
      if (!java.util.Objects.equals(base == null ? null : base.metadataFileLocation(), pointer)) {
        throw new CommitFailedException("Cannot commit: the table changed");
      }
      pointer = file;
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    protected String tableName() {
      return "catalog.ns.orders";
    }
  }

  private static String headFile(ScenarioTable source) {
    return ((HasTableOperations) source.table()).operations().current().metadataFileLocation();
  }

  private static List<String> metadataFiles(String location) {
    try (Stream<Path> files = Files.list(Path.of(location, "metadata"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".metadata.json"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void replicateAndVerify(ScenarioTable source, String target, String... options) {
    source.record();
    List<String> args =
        new ArrayList<>(List.of("replicate", "--source", source.location(), "--target", target));
    args.addAll(List.of(options));
    StringWriter err = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err, true),
            args.toArray(String[]::new));
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
   * Data files are named uniquely, so a replica file pairs with its source file by name: no replica
   * folder may hold files from two source folders.
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
            assertThat(sourceFolders)
                .as("source folders of replica folder %s", replicaFolder)
                .hasSize(1));
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
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, table.io(), table.specs())) {
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
