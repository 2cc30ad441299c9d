package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each kind of bad input stops the replication with a specific error naming the table and the file,
 * and leaves the replica byte for byte as it was.
 */
class ValidationErrorTest {
  @TempDir Path dir;

  private SourceTable source;
  private Path replicaDir;
  private String replica;
  private Map<String, String> replicaBefore;

  @BeforeEach
  void replicateOnce() throws IOException {
    source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 2);
    replicaDir = dir.resolve("replica");
    replica = replicaDir.toUri().toString();
    assertThat(run("replicate", "--source", source.location, "--target", replica).exitCode)
        .isZero();
    replicaBefore = contents(replicaDir);
  }

  private record Result(int exitCode, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }

  /**
   * Replicates, expecting failure with every given fragment in the message and an untouched
   * replica.
   */
  private String failsWith(String... fragments) throws IOException {
    Result result = run("replicate", "--source", source.location, "--target", replica);
    assertThat(result.exitCode).as(result.out + result.err).isEqualTo(1);
    assertThat(result.err).startsWith("error: Cannot ");
    for (String fragment : fragments) {
      assertThat(result.err).contains(fragment);
    }
    assertThat(contents(replicaDir))
        .as("replica files after the failed run")
        .isEqualTo(replicaBefore);
    return result.err;
  }

  private Path sourceMetadata() {
    return dir.resolve("source/metadata");
  }

  private int currentVersion() throws IOException {
    return Integer.parseInt(Files.readString(sourceMetadata().resolve("version-hint.text")).trim());
  }

  /** Commits a hand-edited copy of the current source metadata as the next version. */
  private Path commitEdited(Consumer<ObjectNode> edit) throws IOException {
    int version = currentVersion();
    ObjectNode json =
        (ObjectNode)
            TableMetadataParser.mapper()
                .readTree(sourceMetadata().resolve("v" + version + ".metadata.json").toFile());
    json.withArray("metadata-log")
        .addObject()
        .put("timestamp-ms", json.get("last-updated-ms").asLong())
        .put(
            "metadata-file",
            sourceMetadata().resolve("v" + version + ".metadata.json").toUri().toString());
    edit.accept(json);
    return commitRaw(TableMetadataParser.mapper().writeValueAsBytes(json));
  }

  private Path commitRaw(byte[] content) throws IOException {
    int next = currentVersion() + 1;
    Path file = sourceMetadata().resolve("v" + next + ".metadata.json");
    Files.write(file, content);
    Files.writeString(sourceMetadata().resolve("version-hint.text"), Integer.toString(next));
    return file;
  }

  @Test
  void aChangedTableUuidAtTheSameLocationIsRefused() throws IOException {
    deleteRecursively(dir.resolve("source"));
    source = SourceTable.create(dir.resolve("source"), 2);
    source.append("c", 1);

    failsWith(
        "table-uuid",
        "differs from the replica's",
        "the source table was replaced",
        "v1.metadata.json");
  }

  @Test
  void anUnknownFormatVersionIsRefused() throws IOException {
    Path file = commitEdited(json -> json.put("format-version", 4));
    failsWith(
        "Cannot read table metadata " + file.toUri(),
        "unsupported format-version 4 (supported: 1, 2, 3)");
  }

  @Test
  void malformedJsonIsRefused() throws IOException {
    commitRaw("{\"format-version\": 2, \"location\": ".getBytes(StandardCharsets.UTF_8));
    failsWith("v4.metadata.json: malformed JSON");
  }

  @Test
  void aMissingRequiredFieldIsNamed() throws IOException {
    commitEdited(json -> ((ObjectNode) json.withArray("snapshots").get(0)).remove("manifest-list"));
    failsWith("v4.metadata.json: missing required field 'manifest-list' in snapshot");
  }

  @Test
  void aMissingDataFileOfALiveEntryIsNamed() throws IOException {
    DataFile file = source.append("a", 2);
    Files.delete(Path.of(java.net.URI.create(file.location())));
    failsWith(
        "Cannot replicate table " + source.location,
        "data file " + file.location(),
        "is missing at the source",
        "named by manifest");
  }

  @Test
  void aDataFileOutsideTheMappingIsRefused() throws IOException {
    Path outside = dir.resolve("elsewhere/x.parquet");
    Files.createDirectories(outside.getParent());
    Files.write(outside, new byte[] {1, 2, 3});
    DataFile file =
        DataFiles.builder(source.table.spec())
            .withPath(outside.toUri().toString())
            .withFormat(FileFormat.PARQUET)
            .withPartitionPath("category=a")
            .withFileSizeInBytes(3)
            .withRecordCount(1)
            .build();
    source.table.newAppend().appendFile(file).commit();
    failsWith("Cannot map path " + outside.toUri(), "outside every mapped source prefix");
  }

  @Test
  void aReusedSchemaIdWithDifferentContentIsAConflict() throws IOException {
    commitEdited(
        json ->
            ((ObjectNode) json.withArray("schemas").get(0).get("fields").get(1))
                .put("name", "renamed"));
    failsWith("Cannot merge schema 0", "the id was reused");
  }

  @Test
  void aSourceWhoseLogLostTheReplicatedFileWasRewound() throws IOException {
    commitEdited(json -> json.putArray("metadata-log"));
    failsWith("is not in its metadata-log; the source was rewound or replaced");
  }

  @Test
  void aLowerLastSequenceNumberMeansRewound() throws IOException {
    commitEdited(json -> json.put("last-sequence-number", 1));
    failsWith("last-sequence-number 1 is lower than the replica's 2; the source was rewound");
  }

  @Test
  void encryptedTablesAreRefused() throws IOException {
    commitEdited(
        json ->
            json.putArray("encryption-keys")
                .addObject()
                .put("key-id", "k")
                .put("encrypted-key-metadata", "AA=="));
    failsWith("encrypted tables are not supported");
  }

  @Test
  void metadataOverTheConfiguredLimitIsRefused() throws IOException {
    source.append("a", 1);
    Result result =
        run(
            "replicate",
            "--source",
            source.location,
            "--target",
            replica,
            "--max-metadata-bytes",
            "500");
    assertThat(result.exitCode).isEqualTo(1);
    assertThat(result.err).contains("larger than the configured limit of 500 bytes");
    assertThat(contents(replicaDir)).isEqualTo(replicaBefore);
  }

  @Test
  void twoFilesWithTheNewestVersionAreAmbiguous() throws IOException {
    int version = currentVersion();
    Files.delete(sourceMetadata().resolve("version-hint.text"));
    byte[] current = Files.readAllBytes(sourceMetadata().resolve("v" + version + ".metadata.json"));
    for (int i = 0; i < 2; i++) {
      Path file =
          sourceMetadata()
              .resolve(String.format("%05d-%s.metadata.json", version + 1, UUID.randomUUID()));
      Files.write(file, current);
      // both older than the settle time: neither writer removed its file
      Files.setLastModifiedTime(
          file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    }
    failsWith("version " + (version + 1) + " is held by more than one file");
  }

  @Test
  void aTargetHoldingAnotherTableIsLeftAlone() throws IOException {
    Path otherDir = dir.resolve("other");
    Table other = SourceTable.TABLES.create(SourceTable.SCHEMA, otherDir.toUri().toString());
    other.newAppend().commit();
    replicaDir = otherDir;
    replica = otherDir.toUri().toString();
    replicaBefore = contents(otherDir);
    failsWith("it already holds a table the replicator did not write");
  }

  @Test
  void aTruncatedManifestListIsRefused() throws IOException {
    source.append("a", 1);
    Snapshot snapshot = source.table.currentSnapshot();
    Path list = Path.of(java.net.URI.create(snapshot.manifestListLocation()));
    truncate(list);
    failsWith("Cannot read manifest list " + snapshot.manifestListLocation());
  }

  @Test
  void aManifestCutAfterItsHeaderIsRefusedFromItsLength() throws IOException {
    source.append("a", 1);
    Snapshot snapshot = source.table.currentSnapshot();
    ManifestFile manifest = addedManifest(snapshot.dataManifests(source.table.io()), snapshot);
    Path file = Path.of(java.net.URI.create(manifest.path()));
    // the header alone decodes as a manifest without entries: only the length shows the loss
    long kept = avroHeaderLength(Files.readAllBytes(file));
    cut(file, kept);
    failsWith(
        "Cannot replicate table "
            + source.location
            + ": manifest "
            + manifest.path()
            + " is "
            + kept
            + " bytes but its manifest list "
            + snapshot.manifestListLocation()
            + " records "
            + manifest.length());
  }

  @Test
  void aManifestCutInsideItsEntriesIsRefusedFromItsLength() throws IOException {
    source.append("a", 1);
    Snapshot snapshot = source.table.currentSnapshot();
    ManifestFile manifest = addedManifest(snapshot.dataManifests(source.table.io()), snapshot);
    Path file = Path.of(java.net.URI.create(manifest.path()));
    // no longer decodes: still its length, not the decoder, names what is wrong
    long kept = manifest.length() - 7;
    cut(file, kept);
    failsWith(
        "manifest "
            + manifest.path()
            + " is "
            + kept
            + " bytes but its manifest list "
            + snapshot.manifestListLocation()
            + " records "
            + manifest.length());
  }

  @Test
  void aManifestLongerThanRecordedIsRefusedFromItsLength() throws IOException {
    source.append("a", 1);
    Snapshot snapshot = source.table.currentSnapshot();
    ManifestFile manifest = addedManifest(snapshot.dataManifests(source.table.io()), snapshot);
    Path file = Path.of(java.net.URI.create(manifest.path()));
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length + 5));
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
    failsWith(
        "manifest "
            + manifest.path()
            + " is "
            + (manifest.length() + 5)
            + " bytes but its manifest list "
            + snapshot.manifestListLocation()
            + " records "
            + manifest.length());
  }

  @Test
  void aTruncatedPositionDeleteFileIsRefusedFromItsLength() throws IOException {
    DataFile data = source.append("a", 3);
    assertThat(run("replicate", "--source", source.location, "--target", replica).exitCode)
        .isZero();
    replicaBefore = contents(replicaDir);
    DeleteFile deletes = source.deletePositions(data, 0);
    Snapshot snapshot = source.table.currentSnapshot();
    ManifestFile manifest = addedManifest(snapshot.deleteManifests(source.table.io()), snapshot);
    Path file = Path.of(java.net.URI.create(deletes.location()));
    cut(file, deletes.fileSizeInBytes() - 1);
    failsWith(
        "Cannot replicate table "
            + source.location
            + ": position delete file "
            + deletes.location()
            + " is "
            + (deletes.fileSizeInBytes() - 1)
            + " bytes but its manifest "
            + manifest.path()
            + " records "
            + deletes.fileSizeInBytes());
  }

  @Test
  void aTruncatedDataFileIsRefusedFromItsLength() throws IOException {
    DataFile data = source.append("a", 3);
    Snapshot snapshot = source.table.currentSnapshot();
    ManifestFile manifest = addedManifest(snapshot.dataManifests(source.table.io()), snapshot);
    cut(Path.of(java.net.URI.create(data.location())), 10);
    failsWith(
        "Cannot replicate table "
            + source.location
            + ": data file "
            + data.location()
            + " is 10 bytes"
            + " but its manifest "
            + manifest.path()
            + " records "
            + data.fileSizeInBytes());
  }

  private static ManifestFile addedManifest(List<ManifestFile> manifests, Snapshot snapshot) {
    return manifests.stream()
        .filter(m -> m.snapshotId() == snapshot.snapshotId())
        .findFirst()
        .orElseThrow();
  }

  /** An Avro container's header ends with its sync marker, which also ends the file. */
  private static long avroHeaderLength(byte[] bytes) {
    byte[] sync = java.util.Arrays.copyOfRange(bytes, bytes.length - 16, bytes.length);
    for (int i = 0; i + 16 <= bytes.length; i++) {
      if (java.util.Arrays.equals(bytes, i, i + 16, sync, 0, 16)) {
        return i + 16;
      }
    }
    throw new IllegalStateException("no sync marker");
  }

  private static void cut(Path file, long length) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, (int) length));
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }

  @Test
  void aPositionDeleteNamingAPathOutsideTheMappingIsRefusedAndItsCopiesRemoved()
      throws IOException {
    Path outside = dir.resolve("elsewhere/y.parquet");
    DataFile first = source.append("a", 3);
    assertThat(run("replicate", "--source", source.location, "--target", replica).exitCode)
        .isZero();
    replicaBefore = contents(replicaDir);
    DataFile moved =
        DataFiles.builder(source.table.spec())
            .copy(first)
            .withPath(outside.toUri().toString())
            .build();
    // one commit adds a data file and a delete file whose rows name a path outside the mapping:
    // the data file copied before the rewrite failed must not stay behind
    source
        .table
        .newRowDelta()
        .addRows(source.writeData("b", 2))
        .addDeletes(source.writePositionDeletes(moved, 0))
        .commit();
    failsWith("Cannot map path " + outside.toUri());
  }

  private static void truncate(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }

  private static Map<String, String> contents(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    if (!Files.exists(root)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      List<Path> paths = new ArrayList<>(walk.filter(Files::isRegularFile).toList());
      for (Path p : paths) {
        files.put(root.relativize(p).toString(), sha256(Files.readAllBytes(p)));
      }
    }
    return files;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
