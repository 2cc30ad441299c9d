package io.icerepl.merge.manifest;

import static io.icerepl.merge.manifest.IcebergTables.DATA_COLUMN;
import static io.icerepl.merge.manifest.IcebergTables.DELETE_FILE_PATH;
import static io.icerepl.merge.manifest.IcebergTables.DELETE_POS;
import static io.icerepl.merge.manifest.IcebergTables.avro;
import static io.icerepl.merge.manifest.IcebergTables.bytes;
import static io.icerepl.merge.manifest.IcebergTables.fileName;
import static io.icerepl.merge.manifest.IcebergTables.rewriteManifest;
import static io.icerepl.merge.manifest.IcebergTables.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.manifest.IcebergTables.AvroView;
import io.icerepl.merge.manifest.IcebergTables.Fixture;
import io.icerepl.merge.manifest.IcebergTables.Replica;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ManifestRewriterTest {

  @TempDir java.nio.file.Path dir;

  // ------------------------------------------------------------------ readLiveFiles

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void readLiveFilesReturnsTheFilesIcebergReadsAsLive(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);

    for (ManifestFile manifest : fixture.current().allManifests(fixture.io())) {
      List<ManifestEntry> live =
          ManifestRewriter.readLiveFiles(
              new ByteArrayInputStream(bytes(manifest.path())), fileName(manifest.path()));

      List<ManifestEntry> expected =
          icebergFiles(manifest, fixture.io(), fixture).stream()
              .map(
                  file ->
                      new ManifestEntry(
                          0,
                          file.content().id(),
                          file.location(),
                          file.format().name(),
                          file.fileSizeInBytes(),
                          file instanceof DeleteFile delete && delete.referencedDataFile() != null
                              ? delete.referencedDataFile().toString()
                              : null))
              .toList();
      assertThat(live)
          .usingRecursiveFieldByFieldElementComparatorIgnoringFields("status")
          .containsExactlyElementsOf(expected);
      assertThat(live).allSatisfy(file -> assertThat(file.live()).isTrue());
    }
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void readLiveFilesLeavesOutDeletedEntries(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    ManifestFile withDeleted = manifestWithDeletedEntries(fixture);

    List<ManifestEntry> live =
        ManifestRewriter.readLiveFiles(
            new ByteArrayInputStream(bytes(withDeleted.path())), "m.avro");

    assertThat(live)
        .extracting(ManifestEntry::filePath)
        .containsExactly(fixture.dataB().location());
    assertThat(live).extracting(ManifestEntry::status).containsExactly(0); // EXISTING
    assertThat(statusByPath(avro(bytes(withDeleted.path()))))
        .containsEntry(fixture.dataA().location(), 2);
  }

  @Test
  void readLiveFilesReportsFormatReferencedFileAndDeleteContent() {
    Fixture fixture = IcebergTables.create(dir, 3);
    ManifestFile deletes = fixture.current().deleteManifests(fixture.io()).get(0);

    List<ManifestEntry> live =
        ManifestRewriter.readLiveFiles(new ByteArrayInputStream(bytes(deletes.path())), "d.avro");

    assertThat(live)
        .contains(
            new ManifestEntry(
                1, 1, fixture.dvB().location(), "PUFFIN", 180, fixture.dataB().location()),
            new ManifestEntry(1, 2, fixture.eqDelete().location(), "PARQUET", 321, null));
  }

  // ------------------------------------------------------------------ rewrite: paths

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void rewriteMapsThePathOfEveryEntryIncludingDeletedOnes(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    ManifestFile withDeleted = manifestWithDeletedEntries(fixture);

    byte[] output =
        rewriteManifest(bytes(withDeleted.path()), "m.avro", fixture.mapping()::map, p -> null);

    Map<String, Integer> statuses = statusByPath(avro(output));
    assertThat(statuses)
        .containsEntry(fixture.mapping().map(fixture.dataA().location()), 2)
        .containsEntry(fixture.mapping().map(fixture.dataB().location()), 0)
        .hasSize(2);
    assertThat(statuses.keySet())
        .allSatisfy(p -> assertThat(p).startsWith(fixture.replicaLocation()));
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void replicaManifestsReadByIcebergNameOnlyReplicaPaths(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);

    Replica replica = IcebergTables.replicate(fixture, fixture.current(), p -> null);

    List<ContentFile<?>> files = new ArrayList<>();
    for (ManifestFile manifest : replica.snapshot().allManifests(replica.io())) {
      files.addAll(icebergFiles(manifest, replica.io(), fixture));
    }
    assertThat(files).hasSize(formatVersion == 1 ? 2 : formatVersion == 2 ? 6 : 4);
    String data = fixture.replicaLocation() + "/data/";
    for (ContentFile<?> file : files) {
      assertThat(file.location()).startsWith(data);
      if (file instanceof DeleteFile delete
          && delete.content() != org.apache.iceberg.FileContent.EQUALITY_DELETES) {
        // what readers use to pair a file-scoped delete with its data file
        String referenced = ContentFileUtil.referencedDataFileLocation(delete);
        if (referenced != null) {
          assertThat(referenced).startsWith(data);
        }
      }
    }
    if (formatVersion == 3) {
      DeleteFile dv = find(files, fixture.mapping().map(fixture.dvB().location()));
      assertThat(dv.referencedDataFile().toString())
          .isEqualTo(fixture.mapping().map(fixture.dataB().location()));
      assertThat(dv.contentOffset()).isEqualTo(4L);
      assertThat(dv.contentSizeInBytes()).isEqualTo(60L);
      assertThat(dv.format()).isEqualTo(FileFormat.PUFFIN);
    }
  }

  @Test
  void dataFileOutsideTheMappingFailsTheRewrite() {
    Fixture fixture = IcebergTables.create(dir, 2);
    ManifestFile manifest = fixture.current().dataManifests(fixture.io()).get(0);
    PathMapping elsewhere = PathMapping.of("s3://other/warehouse", "s3://replica/warehouse");

    assertThatThrownBy(
            () -> rewriteManifest(bytes(manifest.path()), "m.avro", elsewhere::map, p -> null))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining(fixture.sourceLocation() + "/data/");
  }

  // ------------------------------------------------------------------ rewrite: bounds

  @Test
  void equalPositionDeleteBoundsAreMappedAndStayEqual() {
    Fixture fixture = IcebergTables.create(dir, 2);

    DeleteFile single = replicaDeleteFile(fixture, fixture.posDeleteSingleFile(), p -> null);

    String mappedB = fixture.mapping().map(fixture.dataB().location());
    assertThat(string(single.lowerBounds().get(DELETE_FILE_PATH))).isEqualTo(mappedB);
    assertThat(string(single.upperBounds().get(DELETE_FILE_PATH))).isEqualTo(mappedB);
    assertThat(ContentFileUtil.referencedDataFileLocation(single)).isEqualTo(mappedB);
    assertThat(single.lowerBounds().get(DELETE_POS))
        .isEqualTo(fixture.posDeleteSingleFile().lowerBounds().get(DELETE_POS));
  }

  @Test
  void differingPositionDeleteBoundsAreRemovedKeepingTheOtherColumnsBounds() {
    Fixture fixture = IcebergTables.create(dir, 2);

    DeleteFile range = replicaDeleteFile(fixture, fixture.posDeleteRange(), p -> null);

    assertThat(range.lowerBounds()).doesNotContainKey(DELETE_FILE_PATH);
    assertThat(range.upperBounds()).doesNotContainKey(DELETE_FILE_PATH);
    assertThat(range.lowerBounds().get(DELETE_POS))
        .isEqualTo(fixture.posDeleteRange().lowerBounds().get(DELETE_POS));
    assertThat(range.upperBounds().get(DELETE_POS))
        .isEqualTo(fixture.posDeleteRange().upperBounds().get(DELETE_POS));
  }

  /**
   * Data files under the table location and under a write path outside it land in one replica
   * folder, where the order of their names flips: mapped one by one, the delete file's file_path
   * bounds would invert and Iceberg would pair it with neither data file.
   */
  @Test
  void boundsThatTwoPrefixesWouldInvertAreClearedAndIcebergStillAppliesTheDeletesToBothFiles()
      throws IOException {
    String source = "file:" + dir.resolve("source");
    String writePath = "file:" + dir.resolve("source2") + "/data";
    String replica = "file:" + dir.resolve("replica");
    PathMapping mapping = PathMapping.of(source, replica).with(writePath, replica + "/data");
    Table table =
        new org.apache.iceberg.hadoop.HadoopTables(new org.apache.hadoop.conf.Configuration())
            .create(
                IcebergTables.SCHEMA, IcebergTables.SPEC, Map.of("format-version", "2"), source);
    DataFile z = IcebergTables.dataFile(source + "/data/z.parquet", "x", null);
    DataFile a = IcebergTables.dataFile(writePath + "/a.parquet", "x", null);
    table.newAppend().appendFile(z).appendFile(a).commit();
    DeleteFile both =
        IcebergTables.positionDeletes(
            z, source + "/data/pos-both.parquet", z.location(), a.location(), null);
    DeleteFile onlyA =
        IcebergTables.positionDeletes(
            a, source + "/data/pos-a.parquet", a.location(), a.location(), null);
    table.newRowDelta().addDeletes(both).addDeletes(onlyA).commit();
    assertThat(z.location()).isLessThan(a.location());
    assertThat(mapping.map(z.location())).isGreaterThan(mapping.map(a.location()));

    Replica copy = IcebergTables.replicate(table.io(), table.currentSnapshot(), mapping, p -> null);

    Map<String, DeleteFile> deletes = new HashMap<>();
    for (ManifestFile manifest : copy.snapshot().deleteManifests(copy.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, copy.io(), table.specs())) {
        reader.forEach(file -> deletes.put(file.location(), file.copy()));
      }
    }
    DeleteFile replicaBoth = deletes.get(mapping.map(both.location()));
    assertThat(replicaBoth.lowerBounds())
        .doesNotContainKey(DELETE_FILE_PATH)
        .containsKey(DELETE_POS);
    assertThat(replicaBoth.upperBounds())
        .doesNotContainKey(DELETE_FILE_PATH)
        .containsKey(DELETE_POS);
    DeleteFile replicaOnlyA = deletes.get(mapping.map(onlyA.location()));
    assertThat(string(replicaOnlyA.lowerBounds().get(DELETE_FILE_PATH)))
        .isEqualTo(mapping.map(a.location()));
    assertThat(string(replicaOnlyA.upperBounds().get(DELETE_FILE_PATH)))
        .isEqualTo(mapping.map(a.location()));

    // what a reader that range-checks file_path bounds decides
    assertThat(boundsAdmit(replicaBoth, mapping.map(z.location()))).isTrue();
    assertThat(boundsAdmit(replicaBoth, mapping.map(a.location()))).isTrue();
    assertThat(boundsAdmit(replicaOnlyA, mapping.map(z.location()))).isFalse();
    assertThat(boundsAdmit(replicaOnlyA, mapping.map(a.location()))).isTrue();
    // and what Iceberg's own scan planning pairs
    Map<String, List<String>> deletesByDataFile =
        plannedDeletes(table, copy, mapping.map(table.currentSnapshot().manifestListLocation()));
    assertThat(deletesByDataFile)
        .containsOnlyKeys(mapping.map(z.location()), mapping.map(a.location()));
    assertThat(deletesByDataFile.get(mapping.map(z.location())))
        .containsExactly(replicaBoth.location());
    assertThat(deletesByDataFile.get(mapping.map(a.location())))
        .containsExactlyInAnyOrder(replicaBoth.location(), replicaOnlyA.location());
  }

  @Test
  void differingPositionDeleteBoundsThatCannotBeMappedAreDroppedFromBothMaps() {
    Fixture fixture = IcebergTables.create(dir, 2);
    assertThat(fixture.posDeleteEscaping().upperBounds()).containsKey(DELETE_FILE_PATH);

    DeleteFile escaping = replicaDeleteFile(fixture, fixture.posDeleteEscaping(), p -> null);

    assertThat(escaping.lowerBounds()).doesNotContainKey(DELETE_FILE_PATH).containsKey(DELETE_POS);
    assertThat(escaping.upperBounds()).doesNotContainKey(DELETE_FILE_PATH).containsKey(DELETE_POS);
    assertThat(escaping.location()).startsWith(fixture.replicaLocation());
  }

  @Test
  void equalPositionDeleteBoundsThatCannotBeMappedFailTheRewrite() {
    Fixture fixture = IcebergTables.create(dir, 2);
    ManifestFile deletes = fixture.current().deleteManifests(fixture.io()).get(0);
    String dataB = fixture.dataB().location();
    Function<String, String> mapAllButB =
        path -> {
          if (path.equals(dataB)) {
            throw new PathOutsideMappingException("Cannot map path " + path + ": test");
          }
          return fixture.mapping().map(path);
        };

    assertThatThrownBy(
            () -> rewriteManifest(bytes(deletes.path()), "d.avro", mapAllButB, p -> null))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining(dataB);
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void userColumnBoundsAndPartitionValuesThatContainTheSourcePrefixAreUnchanged(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);

    Replica replica = IcebergTables.replicate(fixture, fixture.current(), p -> null);

    for (ManifestFile manifest : replica.snapshot().allManifests(replica.io())) {
      for (ContentFile<?> file : icebergFiles(manifest, replica.io(), fixture)) {
        assertThat(file.partition().get(0, String.class)).isEqualTo(fixture.prefixLookalike());
        if (file.content() == org.apache.iceberg.FileContent.DATA) {
          assertThat(string(file.lowerBounds().get(DATA_COLUMN)))
              .isEqualTo(fixture.prefixLookalike() + "/a");
          assertThat(string(file.upperBounds().get(DATA_COLUMN)))
              .isEqualTo(fixture.prefixLookalike() + "/z");
        }
        if (file.content() == org.apache.iceberg.FileContent.EQUALITY_DELETES) {
          assertThat(file.lowerBounds()).isEqualTo(fixture.eqDelete().lowerBounds());
          assertThat(file.upperBounds()).isEqualTo(fixture.eqDelete().upperBounds());
        }
      }
    }
  }

  // ------------------------------------------------------------------ rewrite: rewritten files

  @Test
  void rewrittenDeleteFilesGetTheirNewSizeAndSplitOffsetsAndNoOtherFileChanges() {
    Fixture fixture = IcebergTables.create(dir, 2);
    Map<String, RewrittenFile> rewritten = new HashMap<>();
    rewritten.put(
        fixture.posDeleteSingleFile().location(), new RewrittenFile(999, List.of(4L, 500L)));
    rewritten.put(fixture.posDeleteRange().location(), new RewrittenFile(777, null));

    Replica replica = IcebergTables.replicate(fixture, fixture.current(), rewritten::get);

    List<ContentFile<?>> files = new ArrayList<>();
    for (ManifestFile manifest : replica.snapshot().allManifests(replica.io())) {
      files.addAll(icebergFiles(manifest, replica.io(), fixture));
    }
    DeleteFile single =
        find(files, fixture.mapping().map(fixture.posDeleteSingleFile().location()));
    assertThat(single.fileSizeInBytes()).isEqualTo(999);
    assertThat(single.splitOffsets()).containsExactly(4L, 500L);
    DeleteFile range = find(files, fixture.mapping().map(fixture.posDeleteRange().location()));
    assertThat(range.fileSizeInBytes()).isEqualTo(777);
    assertThat(range.splitOffsets()).isNull();
    DeleteFile escaping =
        find(files, fixture.mapping().map(fixture.posDeleteEscaping().location()));
    assertThat(escaping.fileSizeInBytes()).isEqualTo(555);
    DeleteFile eq = find(files, fixture.mapping().map(fixture.eqDelete().location()));
    assertThat(eq.fileSizeInBytes()).isEqualTo(321);
    assertThat(eq.splitOffsets()).containsExactly(4L);
    DataFile dataB = find(files, fixture.mapping().map(fixture.dataB().location()));
    assertThat(dataB.fileSizeInBytes()).isEqualTo(1234);
    assertThat(dataB.splitOffsets()).containsExactly(4L);
  }

  @Test
  void rewrittenFileIsAppliedToLiveEntriesOnlyAndLookedUpBySourcePath() {
    Fixture fixture = IcebergTables.create(dir, 2);
    ManifestFile withDeleted = manifestWithDeletedEntries(fixture);
    List<String> asked = new ArrayList<>();
    Function<String, RewrittenFile> everything =
        path -> {
          asked.add(path);
          return new RewrittenFile(42, List.of(8L));
        };

    AvroView after =
        avro(
            rewriteManifest(
                bytes(withDeleted.path()), "m.avro", fixture.mapping()::map, everything));

    assertThat(asked).containsExactly(fixture.dataB().location());
    for (GenericRecord entry : after.records()) {
      GenericRecord file = (GenericRecord) entry.get("data_file");
      long expected = (Integer) entry.get("status") == 2 ? 1234L : 42L;
      assertThat(file.get("file_size_in_bytes")).isEqualTo(expected);
    }
  }

  // ------------------------------------------------------------------ rewrite: file level

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void rewriteKeepsSchemaFileMetadataCodecAndFormatVersion(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);

    for (ManifestFile manifest : fixture.current().allManifests(fixture.io())) {
      byte[] input = bytes(manifest.path());
      AvroView before = avro(input);
      AvroView after = avro(rewriteManifest(input, "m.avro", fixture.mapping()::map, p -> null));

      assertThat(after.schema()).isEqualTo(before.schema());
      assertThat(after.meta()).isEqualTo(before.meta());
      assertThat(after.meta())
          .containsEntry("format-version", Integer.toString(formatVersion))
          .containsKeys("schema", "partition-spec", "partition-spec-id", "avro.codec");
      if (formatVersion >= 2) {
        assertThat(after.meta())
            .containsEntry(
                "content", manifest.content() == ManifestContent.DATA ? "data" : "deletes");
      }
      assertThat(after.records()).hasSameSizeAs(before.records());
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"uncompressed", "snappy", "zstd", "gzip"})
  void rewriteKeepsTheCodecOfEveryManifestAndTheList(String icebergCodec) {
    Fixture fixture =
        IcebergTables.create(dir, 2, Map.of("write.manifest.compression-codec", icebergCodec));
    String avroCodec =
        Map.of("uncompressed", "null", "snappy", "snappy", "zstd", "zstandard", "gzip", "deflate")
            .get(icebergCodec);

    Replica replica = IcebergTables.replicate(fixture, fixture.current(), p -> null);

    // Iceberg applies the manifest codec to manifests only; the list keeps whatever it has.
    assertThat(avro(bytes(replica.snapshot().manifestListLocation())).meta().get("avro.codec"))
        .isEqualTo(avro(bytes(fixture.current().manifestListLocation())).meta().get("avro.codec"));
    for (ManifestFile manifest : fixture.current().allManifests(fixture.io())) {
      assertThat(avro(bytes(manifest.path())).meta()).containsEntry("avro.codec", avroCodec);
    }
    for (ManifestFile manifest : replica.snapshot().allManifests(replica.io())) {
      assertThat(avro(bytes(manifest.path())).meta()).containsEntry("avro.codec", avroCodec);
      assertThat(icebergFiles(manifest, replica.io(), fixture)).isNotEmpty();
    }
  }

  @Test
  void rewritingTheSameManifestTwiceGivesTheSameBytes() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().deleteManifests(fixture.io()).get(0).path());

    assertThat(rewriteManifest(input, "d.avro", fixture.mapping()::map, p -> null))
        .isEqualTo(rewriteManifest(input, "d.avro", fixture.mapping()::map, p -> null));
  }

  // ------------------------------------------------------------------ errors

  @Test
  void truncatedManifestIsBadInputNamingTheFile() {
    Fixture fixture = IcebergTables.create(dir, 2);
    ManifestFile manifest = fixture.current().dataManifests(fixture.io()).get(0);
    byte[] input = bytes(manifest.path());
    String name = fileName(manifest.path());

    for (int cut : new int[] {input.length - 1, input.length - 17, input.length / 2, 10}) {
      byte[] truncated = Arrays.copyOf(input, cut);
      assertThatThrownBy(
              () -> ManifestRewriter.readLiveFiles(new ByteArrayInputStream(truncated), name))
          .as("cut at %d of %d", cut, input.length)
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read manifest " + name + ": ");
      assertThatThrownBy(
              () ->
                  ManifestRewriter.rewrite(
                      new ByteArrayInputStream(truncated),
                      new ByteArrayOutputStream(),
                      name,
                      fixture.mapping()::map,
                      p -> null))
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read manifest " + name + ": ");
    }
  }

  @Test
  void corruptedBlockIsBadInput() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().dataManifests(fixture.io()).get(0).path());
    byte[] corrupted = input.clone();
    for (int i = corrupted.length - 40; i < corrupted.length - 16; i++) {
      corrupted[i] = (byte) 0xff;
    }

    assertThatThrownBy(
            () -> ManifestRewriter.readLiveFiles(new ByteArrayInputStream(corrupted), "bad.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read manifest bad.avro: ");
  }

  @Test
  void manifestWithoutFilePathIsBadInput() throws IOException {
    org.apache.avro.Schema dataFile =
        SchemaBuilder.record("r2").fields().requiredLong("file_size_in_bytes").endRecord();
    org.apache.avro.Schema entry =
        SchemaBuilder.record("manifest_entry")
            .fields()
            .requiredInt("status")
            .name("data_file")
            .type(dataFile)
            .noDefault()
            .endRecord();
    GenericRecord file = new GenericData.Record(dataFile);
    file.put("file_size_in_bytes", 1L);
    GenericRecord row = new GenericData.Record(entry);
    row.put("status", 1);
    row.put("data_file", file);
    byte[] bytes = ManifestListRewriterTest.avroFile(entry, row);

    assertThatThrownBy(
            () -> ManifestRewriter.readLiveFiles(new ByteArrayInputStream(bytes), "x.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read manifest x.avro: its data_file has no file_path field");
  }

  @Test
  void manifestListIsNotAManifest() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] list = bytes(fixture.current().manifestListLocation());

    assertThatThrownBy(
            () -> ManifestRewriter.readLiveFiles(new ByteArrayInputStream(list), "snap.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read manifest snap.avro: it has no status field");
  }

  // ------------------------------------------------------------------ helpers

  /** Whether the delete file's file_path bounds, when present, admit a data file's path. */
  private static boolean boundsAdmit(DeleteFile delete, String dataFile) {
    ByteBuffer lower = delete.lowerBounds().get(DELETE_FILE_PATH);
    ByteBuffer upper = delete.upperBounds().get(DELETE_FILE_PATH);
    var order = org.apache.iceberg.types.Comparators.charSequences();
    return (lower == null || order.compare(string(lower), dataFile) <= 0)
        && (upper == null || order.compare(dataFile, string(upper)) <= 0);
  }

  /**
   * The delete files Iceberg's scan planning pairs with each data file of the replica's current
   * snapshot: the source metadata with only that snapshot's manifest list replaced by the
   * replica's, opened as a static table.
   */
  private Map<String, List<String>> plannedDeletes(
      Table source, Replica replica, String replicaList) throws IOException {
    String json =
        org.apache.iceberg.TableMetadataParser.toJson(
                ((org.apache.iceberg.HasTableOperations) source).operations().current())
            .replace(
                "\"" + source.currentSnapshot().manifestListLocation() + "\"",
                "\"" + replicaList + "\"");
    java.nio.file.Path metadata = dir.resolve("replica-view.metadata.json");
    java.nio.file.Files.writeString(metadata, json);
    Table view =
        new org.apache.iceberg.BaseTable(
            new org.apache.iceberg.StaticTableOperations(metadata.toString(), replica.io()),
            "replica");
    Map<String, List<String>> planned = new HashMap<>();
    try (var tasks = view.newScan().planFiles()) {
      for (var task : tasks) {
        planned.put(
            task.file().location(), task.deletes().stream().map(DeleteFile::location).toList());
      }
    }
    return planned;
  }

  private static ManifestFile manifestWithDeletedEntries(Fixture fixture) {
    return IcebergTables.allManifests(fixture).stream()
        .filter(m -> m.deletedFilesCount() != null && m.deletedFilesCount() > 0)
        .findFirst()
        .orElseThrow();
  }

  private static Map<String, Integer> statusByPath(AvroView manifest) {
    Map<String, Integer> statuses = new HashMap<>();
    for (GenericRecord entry : manifest.records()) {
      GenericRecord file = (GenericRecord) entry.get("data_file");
      statuses.put(file.get("file_path").toString(), (Integer) entry.get("status"));
    }
    return statuses;
  }

  private DeleteFile replicaDeleteFile(
      Fixture fixture, DeleteFile source, Function<String, RewrittenFile> rewritten) {
    Replica replica = IcebergTables.replicate(fixture, fixture.current(), rewritten);
    List<ContentFile<?>> files = new ArrayList<>();
    for (ManifestFile manifest : replica.snapshot().deleteManifests(replica.io())) {
      files.addAll(icebergFiles(manifest, replica.io(), fixture));
    }
    return find(files, fixture.mapping().map(source.location()));
  }

  @SuppressWarnings("unchecked")
  private static <F extends ContentFile<?>> F find(List<ContentFile<?>> files, String location) {
    return (F)
        files.stream()
            .filter(f -> f.location().equals(location))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no file " + location + " in " + files));
  }

  /** The live files of a manifest, read with Iceberg. */
  private static List<ContentFile<?>> icebergFiles(
      ManifestFile manifest, org.apache.iceberg.io.FileIO io, Fixture fixture) {
    List<ContentFile<?>> files = new ArrayList<>();
    try {
      if (manifest.content() == ManifestContent.DATA) {
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, io, fixture.table().specs())) {
          reader.forEach(file -> files.add(file.copy()));
        }
      } else {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, io, fixture.table().specs())) {
          reader.forEach(file -> files.add(file.copy()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
