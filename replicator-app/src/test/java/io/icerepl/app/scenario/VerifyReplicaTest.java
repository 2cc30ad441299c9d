package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.io.ByteArraySeekableInput;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.puffin.DeletionVectorRewriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify} on a replica of a real table (appends, position and equality deletes, a schema
 * change, a tag, a branch, statistics) replicated by the replicator: clean as replicated, and each
 * kind of damage caught by its own check.
 */
class VerifyReplicaTest {
  @TempDir Path dir;

  private ScenarioTable source;
  private String replica;
  private long tagged;
  private DataFile positionDeleted;

  @BeforeEach
  void replicateATableWithEveryKindOfFile() {
    source =
        ScenarioTable.create(
            "verify",
            dir.resolve("source").toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    DataFile a = source.append(source.row(1, "a", "x"), source.row(2, "b", "x")).get(0);
    DataFile b = source.append(source.row(3, "c", "y"), source.row(4, "d", "y")).get(0);
    source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, a, 0));
    positionDeleted = a;
    source.commitDeletes(source.writeEqualityDeletes(FileFormat.AVRO, b, "id", 4));
    tagged = source.table().currentSnapshot().snapshotId();
    source.table().manageSnapshots().createTag("before-extra", tagged).commit();
    source.table().updateSchema().addColumn("extra", Types.LongType.get()).commit();
    source.table().manageSnapshots().createBranch("audit", tagged).commit();
    source.appendToBranch("audit", source.row(5, "e", "x", 50L));
    source.append(source.row(6, "f", "y", 60L));
    source.addStatisticsForCurrentSnapshot();
    source.record();
    replica = Replication.targetFor(source, dir);
    Replication.replicate(source.location(), replica);
  }

  @Test
  void aCompleteReplicaVerifiesCleanAloneAndAgainstItsSource() {
    new ReplicaVerifier().verify(source, replica);

    Verified alone = verify("--target", replica);
    Verified withSource = verify("--source", source.location(), "--target", replica);

    for (Verified verified : List.of(alone, withSource)) {
      assertThat(verified.exit).as(verified.out).isZero();
      assertThat(verified.lines()).as(verified.out).hasSize(1);
      assertThat(verified.lines().get(0)).endsWith(" checked, 0 problems");
    }
    // every manifest list, manifest, data, delete and statistics file and path counts
    assertThat(alone.checked()).isGreaterThan(30);
    // the source's snapshots and refs are compared on top
    int snapshotsAndRefs = countSnapshots(source.table()) + source.table().refs().size();
    assertThat(withSource.checked()).isEqualTo(alone.checked() + snapshotsAndRefs);
  }

  @Test
  void snapshotsTheReplicasOwnRetentionExpiredAreNotMissing() {
    int expired =
        ReplicatorCli.execute(
            "expire", "--target", replica, "--retention-period", "0ms", "--retain-last", "1");
    assertThat(expired).isZero();
    assertThat(replicaTable().snapshots()).hasSizeLessThan(countSnapshots(source.table()));

    Verified verified = verify("--source", source.location(), "--target", replica);

    assertThat(verified.exit).as(verified.out).isZero();
    assertThat(verified.out).contains(" checked, 0 problems");
  }

  @Test
  void aDeletedDataFileIsReported() throws IOException {
    String data = firstDataFile();
    Files.delete(Paths.get(ReplicaVerifier.localPath(data)));

    Verified verified = verify("--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems()).hasSize(1);
    assertThat(verified.problems().get(0))
        .startsWith("data file " + data + " (manifest ")
        .endsWith(": does not exist");
  }

  @Test
  void aTruncatedManifestIsReportedUnreadable() throws IOException {
    ManifestFile manifest =
        replicaTable().currentSnapshot().allManifests(replicaTable().io()).get(0);
    Path file = Paths.get(ReplicaVerifier.localPath(manifest.path()));
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(raf.length() / 2);
    }

    Verified verified = verify("--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems())
        .anyMatch(
            p -> p.startsWith("manifest " + manifest.path()) && p.contains(": cannot be read: "));
  }

  @Test
  void aFileWithTheRightNameButTheWrongLengthIsReported() throws IOException {
    String data = firstDataFile();
    Path file = Paths.get(ReplicaVerifier.localPath(data));
    long length = Files.size(file);
    Files.write(file, new byte[] {0, 0, 0}, java.nio.file.StandardOpenOption.APPEND);

    Verified verified = verify("--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems()).hasSize(1);
    assertThat(verified.problems().get(0))
        .startsWith("data file " + data + " (manifest ")
        .endsWith(": has " + (length + 3) + " bytes, " + length + " recorded");
  }

  @Test
  void aSnapshotTheSourceHoldsAndTheReplicaLacksIsReported() {
    source.append(source.row(7, "g", "x", 70L));
    long added = source.table().currentSnapshot().snapshotId();

    Verified alone = verify("--target", replica);
    Verified withSource = verify("--source", source.location(), "--target", replica);

    assertThat(alone.exit).as(alone.out).isZero();
    assertThat(withSource.exit).isEqualTo(1);
    assertThat(withSource.problems())
        .contains(
            "snapshot "
                + added
                + ": the source holds it (sequence number "
                + source.table().currentSnapshot().sequenceNumber()
                + "), the replica does not and did not expire it");
  }

  @Test
  void aRefPointingElsewhereThanOnTheSourceIsReported() {
    long main = source.table().currentSnapshot().snapshotId();
    source.table().manageSnapshots().replaceTag("before-extra", main).commit();

    Verified verified = verify("--source", source.location(), "--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems())
        .containsExactly(
            "ref before-extra: points at snapshot "
                + tagged
                + " on the replica, at "
                + main
                + " on the source");
  }

  @Test
  void aPathPointingOutsideTheReplicaIsReported() throws IOException {
    List<Path> versions = Replication.versionFiles(replica);
    Path current = versions.get(versions.size() - 1);
    ObjectMapper json = new ObjectMapper();
    ObjectNode metadata = (ObjectNode) json.readTree(current.toFile());
    ObjectNode snapshot = (ObjectNode) metadata.get("snapshots").get(0);
    long id = snapshot.get("snapshot-id").asLong();
    String sourceList = source.table().snapshot(id).manifestListLocation();
    snapshot.put("manifest-list", sourceList);
    json.writeValue(current.toFile(), metadata);

    Verified verified = verify("--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems())
        .anyMatch(
            p ->
                p.startsWith("manifest list " + sourceList + " (snapshot " + id + "): ")
                    && p.contains("points outside the replica"));
  }

  @Test
  void aPositionDeleteBoundNamingASourceDataFileIsReported() throws IOException {
    String sourcePath = positionDeleted.location();
    String name = sourcePath.substring(sourcePath.lastIndexOf('/'));
    Table table = replicaTable();
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      Path file = Paths.get(ReplicaVerifier.localPath(manifest.path()));
      ByteArrayOutputStream rewritten = new ByteArrayOutputStream();
      ManifestRewriter.rewrite(
          new ByteArrayInputStream(Files.readAllBytes(file)),
          rewritten,
          file.getFileName().toString(),
          p -> p.endsWith(name) ? sourcePath : p,
          p -> null);
      Files.write(file, rewritten.toByteArray());
    }

    Verified verified = verify("--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems())
        .anyMatch(
            p ->
                p.startsWith(
                        "data file " + sourcePath + " (file_path bounds of position delete file ")
                    && p.contains("points outside the replica"));
  }

  @Test
  void aPositionDeleteFileNamingASourceDataFileInItsFilePathColumnIsReported() throws IOException {
    String sourcePath = positionDeleted.location();
    String name = sourcePath.substring(sourcePath.lastIndexOf('/'));
    DeleteFile deletes = replicaDeleteFile(replicaTable(), FileFormat.PARQUET);
    Path file = Paths.get(ReplicaVerifier.localPath(deletes.location()));
    ByteArrayOutputStream rewritten = new ByteArrayOutputStream();
    RewrittenFile written =
        PositionDeleteRewriter.rewrite(
            "PARQUET",
            new ByteArraySeekableInput(Files.readAllBytes(file)),
            rewritten,
            file.getFileName().toString(),
            p -> p.endsWith(name) ? sourcePath : p);
    Files.write(file, rewritten.toByteArray());
    recordLength(replicaTable(), deletes.location(), written);

    Verified verified = verify("--target", replica);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems())
        .anyMatch(
            p ->
                p.startsWith(
                        "data file "
                            + sourcePath
                            + " (file_path of position delete file "
                            + deletes.location()
                            + "): ")
                    && p.contains("points outside the replica"));
    assertThat(verified.problems()).noneMatch(p -> p.startsWith("position delete file "));
  }

  @Test
  void aDeletionVectorNamingASourceDataFileOrAMissingOneIsReported() throws IOException {
    ScenarioTable v3 =
        ScenarioTable.create(
            "verify-dv",
            dir.resolve("dv-source").toString(),
            Scenario.SCHEMA,
            PartitionSpec.unpartitioned(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "3"));
    DataFile data = v3.append(v3.row(1, "a", "x"), v3.row(2, "b", "x")).get(0);
    v3.commitDeletes(v3.writeDeletionVectors(Map.of(data, new long[] {0})));
    String dvReplica = Replication.targetFor(v3, dir.resolve("dv"));
    Replication.replicate(v3.location(), dvReplica);
    Table table = new ReplicaVerifier().load(dvReplica);
    DeleteFile vector = replicaDeleteFile(table, FileFormat.PUFFIN);
    String replicaData = vector.referencedDataFile();
    Verified clean = verify("--target", dvReplica);
    assertThat(clean.exit).as(clean.out).isZero();

    Files.delete(Paths.get(ReplicaVerifier.localPath(replicaData)));
    Verified missing = verify("--target", dvReplica);

    assertThat(missing.problems())
        .contains(
            "data file "
                + replicaData
                + " (referenced-data-file of deletion vector file "
                + vector.location()
                + "): does not exist");

    Path file = Paths.get(ReplicaVerifier.localPath(vector.location()));
    ByteArrayOutputStream rewritten = new ByteArrayOutputStream();
    RewrittenFile written =
        DeletionVectorRewriter.rewrite(
            new ByteArraySeekableInput(Files.readAllBytes(file)),
            rewritten,
            file.getFileName().toString(),
            p -> data.location());
    Files.write(file, rewritten.toByteArray());
    recordLength(table, vector.location(), written);
    Verified outside = verify("--target", dvReplica);

    assertThat(outside.exit).isEqualTo(1);
    assertThat(outside.problems())
        .anyMatch(
            p ->
                p.startsWith(
                        "data file "
                            + data.location()
                            + " (referenced-data-file of deletion vector file "
                            + vector.location()
                            + "): ")
                    && p.contains("points outside the replica"));
  }

  @Test
  void aDeletionVectorNamingADataFileNotLiveInItsSnapshotIsReported() throws IOException {
    ScenarioTable v3 =
        ScenarioTable.create(
            "verify-dv-live",
            dir.resolve("dv-live-source").toString(),
            Scenario.SCHEMA,
            PartitionSpec.unpartitioned(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "3"));
    DataFile kept = v3.append(v3.row(1, "a", "x"), v3.row(2, "b", "x")).get(0);
    DataFile removed = v3.append(v3.row(3, "c", "y"), v3.row(4, "d", "y")).get(0);
    v3.commitDeletes(v3.writeDeletionVectors(Map.of(kept, new long[] {0})));
    String clean = Replication.targetFor(v3, dir.resolve("dv-live"));
    Replication.replicate(v3.location(), clean);
    assertThat(verify("--target", clean).exit).isZero();

    // a writer that skips Iceberg's validation: the vector names a file no longer in the table,
    // which the replica still holds for the snapshots before its removal
    v3.table().newDelete().deleteFile(removed).commit();
    v3.commitDeletes(v3.writeDeletionVectors(Map.of(removed, new long[] {1})));
    long dangling = v3.table().currentSnapshot().snapshotId();
    Replication.replicate(v3.location(), clean);
    Table table = new ReplicaVerifier().load(clean);
    String replicaRemoved = null;
    String vector = null;
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (CloseableIterable<DeleteFile> deletes =
          org.apache.iceberg.ManifestFiles.readDeleteManifest(
              manifest, table.io(), table.specs())) {
        for (DeleteFile delete : deletes) {
          if (delete.referencedDataFile().endsWith(fileName(removed.location()))) {
            replicaRemoved = delete.referencedDataFile();
            vector = delete.location();
          }
        }
      }
    }
    assertThat(replicaRemoved).isNotNull();
    assertThat(Files.exists(Paths.get(ReplicaVerifier.localPath(replicaRemoved)))).isTrue();

    Verified verified = verify("--target", clean);

    assertThat(verified.exit).isEqualTo(1);
    assertThat(verified.problems())
        .containsExactly(
            "deletion vector file "
                + vector
                + " (snapshot "
                + dangling
                + "): its referenced data file "
                + replicaRemoved
                + " is not a live data file of snapshot "
                + dangling
                + " (manifest list "
                + table.currentSnapshot().manifestListLocation()
                + ")");
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  @Test
  void aMissingTargetIsAUsageError() {
    assertThat(verify("--source", source.location()).exit).isEqualTo(2);
  }

  private String firstDataFile() throws IOException {
    Table table = replicaTable();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      return tasks.iterator().next().file().location();
    }
  }

  /** The first delete file of that format a scan of the current snapshot applies. */
  private static DeleteFile replicaDeleteFile(Table table, FileFormat format) throws IOException {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile deletes : task.deletes()) {
          if (deletes.format() == format && deletes.content() == FileContent.POSITION_DELETES) {
            return deletes;
          }
        }
      }
    }
    throw new AssertionError("no " + format + " position delete file in " + table.location());
  }

  /**
   * Records a delete file rewritten by hand with its new length in every delete manifest of the
   * current snapshot, as the replicator does, so only what the file names inside is wrong.
   */
  private static void recordLength(Table table, String deleteFile, RewrittenFile written)
      throws IOException {
    for (ManifestFile manifest : table.currentSnapshot().deleteManifests(table.io())) {
      Path file = Paths.get(ReplicaVerifier.localPath(manifest.path()));
      ByteArrayOutputStream rewritten = new ByteArrayOutputStream();
      ManifestRewriter.rewrite(
          new ByteArrayInputStream(Files.readAllBytes(file)),
          rewritten,
          file.getFileName().toString(),
          p -> p,
          p -> p.equals(deleteFile) ? written : null);
      Files.write(file, rewritten.toByteArray());
    }
  }

  private Table replicaTable() {
    return new ReplicaVerifier().load(replica);
  }

  private static int countSnapshots(Table table) {
    int count = 0;
    for (var ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  private static Verified verify(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>();
    all.add("verify");
    all.addAll(List.of(args));
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Verified(exit, out.toString() + err);
  }

  /** The exit code and output of one {@code verify} run. */
  record Verified(int exit, String out) {
    List<String> lines() {
      return out.lines().toList();
    }

    /** The problem lines: every line but the summary. */
    List<String> problems() {
      List<String> lines = lines();
      return lines.subList(0, Math.max(0, lines.size() - 1));
    }

    long checked() {
      String last = lines().get(lines().size() - 1);
      return Long.parseLong(last.substring(0, last.indexOf(' ')));
    }
  }
}
