package io.icerepl.merge.manifest;

import static io.icerepl.merge.manifest.IcebergTables.avro;
import static io.icerepl.merge.manifest.IcebergTables.bytes;
import static io.icerepl.merge.manifest.IcebergTables.fileName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.manifest.IcebergTables.AvroView;
import io.icerepl.merge.manifest.IcebergTables.Fixture;
import io.icerepl.merge.manifest.IcebergTables.Replica;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ManifestListRewriterTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void readReturnsTheManifestsIcebergListsInFileOrder(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    Snapshot snapshot = fixture.current();

    List<ManifestListEntry> entries =
        ManifestListRewriter.read(
            new ByteArrayInputStream(bytes(snapshot.manifestListLocation())), "snap.avro");

    List<ManifestFile> expected = snapshot.allManifests(fixture.io());
    assertThat(entries)
        .containsExactlyElementsOf(
            expected.stream()
                .map(
                    m ->
                        new ManifestListEntry(
                            m.path(), m.length(), m.content().id(), m.snapshotId()))
                .toList());
    if (formatVersion >= 2) {
      assertThat(entries).extracting(ManifestListEntry::content).contains(0, 1);
    }
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void rewrittenListIsReadByIcebergWithMappedPathsAndGivenLengthsAndOtherFieldsKept(
      int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    Snapshot snapshot = fixture.current();

    Replica replica = IcebergTables.replicate(fixture, snapshot, path -> null);

    List<ManifestFile> source = snapshot.allManifests(fixture.io());
    List<ManifestFile> copied = replica.snapshot().allManifests(replica.io());
    assertThat(copied).hasSameSizeAs(source);
    for (int i = 0; i < source.size(); i++) {
      ManifestFile from = source.get(i);
      ManifestFile to = copied.get(i);
      assertThat(to.path()).isEqualTo(fixture.mapping().map(from.path()));
      assertThat(to.path()).startsWith(fixture.replicaLocation() + "/metadata/");
      assertThat(to.length()).isEqualTo(replica.manifestLengths().get(from.path()));
      assertThat(to.partitionSpecId()).isEqualTo(from.partitionSpecId());
      assertThat(to.content()).isEqualTo(from.content());
      assertThat(to.sequenceNumber()).isEqualTo(from.sequenceNumber());
      assertThat(to.minSequenceNumber()).isEqualTo(from.minSequenceNumber());
      assertThat(to.snapshotId()).isEqualTo(from.snapshotId());
      assertThat(to.addedFilesCount()).isEqualTo(from.addedFilesCount());
      assertThat(to.existingFilesCount()).isEqualTo(from.existingFilesCount());
      assertThat(to.deletedFilesCount()).isEqualTo(from.deletedFilesCount());
      assertThat(to.addedRowsCount()).isEqualTo(from.addedRowsCount());
      assertThat(to.firstRowId()).isEqualTo(from.firstRowId());
      assertThat(to.partitions()).hasSameSizeAs(from.partitions());
      for (int p = 0; p < from.partitions().size(); p++) {
        // partition summaries are partition values, not paths: kept even when they look like one
        assertThat(to.partitions().get(p).lowerBound())
            .isEqualTo(from.partitions().get(p).lowerBound());
        assertThat(IcebergTables.string(to.partitions().get(p).lowerBound()))
            .isEqualTo(fixture.prefixLookalike());
        assertThat(to.partitions().get(p).upperBound())
            .isEqualTo(from.partitions().get(p).upperBound());
      }
    }
    for (ManifestFile manifest : copied) {
      for (String path : contentPaths(manifest, replica, fixture)) {
        assertThat(path).startsWith(fixture.replicaLocation() + "/data/");
      }
    }
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {1, 2, 3})
  void rewriteKeepsSchemaFileMetadataAndCodec(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    byte[] input = bytes(fixture.current().manifestListLocation());

    byte[] output = rewrite(input, fixture.mapping(), path -> 7L);

    AvroView before = avro(input);
    AvroView after = avro(output);
    assertThat(after.schema()).isEqualTo(before.schema());
    assertThat(after.schema().getField("manifest_path").getObjectProp("field-id")).isEqualTo(500);
    assertThat(after.meta()).isEqualTo(before.meta());
    assertThat(after.meta())
        .containsEntry("format-version", Integer.toString(formatVersion))
        .containsEntry("snapshot-id", Long.toString(fixture.current().snapshotId()))
        .containsEntry("parent-snapshot-id", Long.toString(fixture.current().parentId()))
        .containsKey("avro.codec");
    if (formatVersion >= 2) {
      assertThat(after.meta()).containsKey("sequence-number");
    }
    if (formatVersion >= 3) {
      assertThat(after.meta()).containsKey("first-row-id");
    }
    assertThat(after.records()).hasSameSizeAs(before.records());
    for (int i = 0; i < before.records().size(); i++) {
      GenericRecord from = before.records().get(i);
      GenericRecord to = after.records().get(i);
      assertThat(to.get("manifest_length")).isEqualTo(7L);
      for (org.apache.avro.Schema.Field field : before.schema().getFields()) {
        if (!field.name().equals("manifest_path") && !field.name().equals("manifest_length")) {
          assertThat(to.get(field.name())).as(field.name()).isEqualTo(from.get(field.name()));
        }
      }
    }
  }

  @Test
  void rewriteAsksForTheLengthOfEachSourceManifestPath() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());
    Map<String, Long> lengths = new HashMap<>();
    List<ManifestFile> manifests = fixture.current().allManifests(fixture.io());
    for (int i = 0; i < manifests.size(); i++) {
      lengths.put(manifests.get(i).path(), 1000L + i);
    }

    List<ManifestListEntry> rewritten =
        ManifestListRewriter.read(
            new ByteArrayInputStream(rewrite(input, fixture.mapping(), lengths::get)), "out.avro");

    for (int i = 0; i < manifests.size(); i++) {
      assertThat(rewritten.get(i).manifestPath())
          .isEqualTo(fixture.mapping().map(manifests.get(i).path()));
      assertThat(rewritten.get(i).manifestLength()).isEqualTo(1000L + i);
    }
  }

  @Test
  void rewritingTheSameListTwiceGivesTheSameBytes() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());

    assertThat(rewrite(input, fixture.mapping(), path -> 1L))
        .isEqualTo(rewrite(input, fixture.mapping(), path -> 1L));
  }

  @Test
  void manifestOutsideTheMappingFailsTheRewrite() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());
    PathMapping elsewhere = PathMapping.of("s3://other/warehouse", "s3://replica/warehouse");

    assertThatThrownBy(() -> rewrite(input, elsewhere, path -> 1L))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining(fixture.sourceLocation());
  }

  @Test
  void truncatedListIsBadInputNamingTheFile() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());
    byte[] truncated = Arrays.copyOf(input, input.length - 20);
    String name = fileName(fixture.current().manifestListLocation());

    assertThatThrownBy(() -> ManifestListRewriter.read(new ByteArrayInputStream(truncated), name))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read manifest list " + name + ": ");
    assertThatThrownBy(
            () ->
                ManifestListRewriter.rewrite(
                    new ByteArrayInputStream(truncated),
                    new ByteArrayOutputStream(),
                    name,
                    fixture.mapping()::map,
                    path -> 1L))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read manifest list " + name + ": ");
  }

  @Test
  void headerOnlyPrefixIsBadInput() {
    Fixture fixture = IcebergTables.create(dir, 1);
    byte[] input = bytes(fixture.current().manifestListLocation());

    assertThatThrownBy(
            () ->
                ManifestListRewriter.read(
                    new ByteArrayInputStream(Arrays.copyOf(input, 30)), "snap-1.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("snap-1.avro");
  }

  @Test
  void nonAvroInputIsBadInput() {
    assertThatThrownBy(
            () ->
                ManifestListRewriter.read(
                    new ByteArrayInputStream("{\"not\": \"avro\"}".getBytes()), "snap-2.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read manifest list snap-2.avro: it is not an Avro data file");
  }

  @Test
  void avroFileWithoutManifestPathIsBadInput() throws IOException {
    org.apache.avro.Schema schema =
        org.apache.avro.SchemaBuilder.record("manifest_file")
            .fields()
            .requiredLong("manifest_length")
            .endRecord();
    GenericRecord row = new org.apache.avro.generic.GenericData.Record(schema);
    row.put("manifest_length", 5L);

    assertThatThrownBy(
            () ->
                ManifestListRewriter.read(
                    new ByteArrayInputStream(avroFile(schema, row)), "x.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot read manifest list x.avro: it has no manifest_path field");
  }

  @Test
  void manifestWithKeyMetadataIsUnsupported() throws IOException {
    Fixture fixture = IcebergTables.create(dir, 2);
    AvroView list = avro(bytes(fixture.current().manifestListLocation()));
    GenericRecord[] rows = list.records().toArray(new GenericRecord[0]);
    rows[0].put("key_metadata", ByteBuffer.wrap(new byte[] {1, 2, 3}));
    byte[] encrypted = avroFile(list.schema(), rows);

    assertThatThrownBy(
            () -> ManifestListRewriter.read(new ByteArrayInputStream(encrypted), "snap-3.avro"))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageStartingWith(
            "Cannot replicate manifest list snap-3.avro: encrypted manifests are not supported");
    assertThatThrownBy(
            () ->
                ManifestListRewriter.rewrite(
                    new ByteArrayInputStream(encrypted),
                    new ByteArrayOutputStream(),
                    "snap-3.avro",
                    fixture.mapping()::map,
                    path -> 1L))
        .isInstanceOf(UnsupportedFeatureException.class);
  }

  @Test
  void truncationMessageSaysWhereTheInputEnds() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());
    byte[] truncated = Arrays.copyOf(input, input.length - 5);

    assertThatThrownBy(
            () -> ManifestListRewriter.read(new ByteArrayInputStream(truncated), "snap-4.avro"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("snap-4.avro")
        .hasMessageContaining("the input ends inside block 1");
  }

  @Test
  void listWithoutSnapshotIdOrContentReadsAsMinusOneAndData() throws IOException {
    org.apache.avro.Schema schema =
        org.apache.avro.SchemaBuilder.record("manifest_file")
            .fields()
            .requiredString("manifest_path")
            .requiredLong("manifest_length")
            .optionalLong("added_snapshot_id")
            .endRecord();
    GenericRecord row = new org.apache.avro.generic.GenericData.Record(schema);
    row.put("manifest_path", "s3://b/t/metadata/m1.avro");
    row.put("manifest_length", 77L);

    assertThat(
            ManifestListRewriter.read(new ByteArrayInputStream(avroFile(schema, row)), "v1.avro"))
        .containsExactly(new ManifestListEntry("s3://b/t/metadata/m1.avro", 77L, 0, -1L));
  }

  @Test
  void failingOutputIsAnIoFailureNotBadInput() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());
    java.io.OutputStream broken =
        new java.io.OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("disk full");
          }
        };

    assertThatThrownBy(
            () ->
                ManifestListRewriter.rewrite(
                    new ByteArrayInputStream(input),
                    broken,
                    "snap-5.avro",
                    fixture.mapping()::map,
                    path -> 1L))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageContaining("snap-5.avro")
        .hasMessageContaining("disk full");
  }

  @Test
  void callerStreamsAreNotClosed() {
    Fixture fixture = IcebergTables.create(dir, 2);
    byte[] input = bytes(fixture.current().manifestListLocation());
    boolean[] closed = new boolean[2];
    ByteArrayInputStream in =
        new ByteArrayInputStream(input) {
          @Override
          public void close() {
            closed[0] = true;
          }
        };
    ByteArrayOutputStream out =
        new ByteArrayOutputStream() {
          @Override
          public void close() {
            closed[1] = true;
          }
        };

    ManifestListRewriter.rewrite(in, out, "snap.avro", fixture.mapping()::map, path -> 1L);

    assertThat(closed).containsExactly(false, false);
    assertThat(out.size()).isPositive();
  }

  private static byte[] rewrite(
      byte[] input, PathMapping mapping, java.util.function.ToLongFunction<String> lengths) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ManifestListRewriter.rewrite(
        new ByteArrayInputStream(input), out, "snap.avro", mapping::map, lengths);
    return out.toByteArray();
  }

  static byte[] avroFile(org.apache.avro.Schema schema, GenericRecord... rows) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataFileWriter<GenericRecord> writer =
        new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
      writer.create(schema, out);
      for (GenericRecord row : rows) {
        writer.append(row);
      }
    }
    return out.toByteArray();
  }

  /** Paths of the files a replica manifest names, read back with Iceberg. */
  private static List<String> contentPaths(
      ManifestFile manifest, Replica replica, Fixture fixture) {
    List<String> paths = new java.util.ArrayList<>();
    try {
      if (manifest.content() == org.apache.iceberg.ManifestContent.DATA) {
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, replica.io(), fixture.table().specs())) {
          reader.forEach(file -> paths.add(file.location()));
        }
      } else {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, replica.io(), fixture.table().specs())) {
          reader.forEach(file -> paths.add(file.location()));
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(paths).isNotEmpty();
    return paths;
  }
}
