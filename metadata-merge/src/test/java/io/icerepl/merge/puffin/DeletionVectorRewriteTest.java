package io.icerepl.merge.puffin;

import static io.icerepl.merge.deletes.DeleteFixtures.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.deletes.DeleteFixtures;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.io.ByteArraySeekableInput;
import io.icerepl.merge.io.DecodeBounds;
import io.icerepl.merge.io.FuzzCampaign;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Files;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.FileMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinCompressionCodec;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.util.Pair;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeletionVectorRewriteTest {
  @TempDir Path dir;

  private Table table;
  private PathMapping mapping;

  @BeforeEach
  void createTable() {
    table = DeleteFixtures.createTable(dir, 3);
    mapping = PathMapping.of(table.location(), TARGET);
  }

  private String dataFile(String name) {
    return table.location() + "/data/" + name;
  }

  /** Deletion vectors for three data files, written by Iceberg's DV writer into one Puffin file. */
  private List<DeleteFile> writeDeletionVectors() throws IOException {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> null);
    try (writer) {
      for (int f = 0; f < 3; f++) {
        for (long pos = f; pos < 5000; pos += 7 + f) {
          writer.delete(dataFile("0000" + f + "-data.parquet"), pos, table.spec(), null);
        }
      }
    }
    List<DeleteFile> dvs = writer.result().deleteFiles();
    assertThat(dvs).hasSize(3);
    assertThat(dvs.stream().map(DeleteFile::location).distinct()).hasSize(1);
    return dvs;
  }

  private static Path local(String location) {
    return Path.of(PathMapping.canonical(location));
  }

  private static FileMetadata footer(Path file) throws IOException {
    try (PuffinReader reader = Puffin.read(Files.localInput(file.toFile())).build()) {
      return reader.fileMetadata();
    }
  }

  private static Map<BlobMetadata, ByteBuffer> blobs(Path file) throws IOException {
    Map<BlobMetadata, ByteBuffer> blobs = new HashMap<>();
    try (PuffinReader reader = Puffin.read(Files.localInput(file.toFile())).build()) {
      for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(reader.fileMetadata().blobs())) {
        blobs.put(blob.first(), blob.second());
      }
    }
    return blobs;
  }

  @Test
  void blobsAreCopiedByteForByteAtTheSameOffsetsAndReferencedDataFileIsMapped() throws IOException {
    List<DeleteFile> dvs = writeDeletionVectors();
    Path source = local(dvs.get(0).location());
    byte[] sourceBytes = java.nio.file.Files.readAllBytes(source);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DeletionVectorRewriter.rewrite(
        new ByteArraySeekableInput(sourceBytes), out, "dv.puffin", mapping::map);
    Path replica = DeleteFixtures.save(dir, "replica.puffin", out);
    byte[] replicaBytes = out.toByteArray();

    List<BlobMetadata> before = footer(source).blobs();
    List<BlobMetadata> after = footer(replica).blobs();
    assertThat(after).hasSameSizeAs(before).hasSize(3);
    for (int i = 0; i < after.size(); i++) {
      BlobMetadata was = before.get(i);
      BlobMetadata is = after.get(i);
      assertThat(is.type()).isEqualTo(StandardBlobTypes.DV_V1).isEqualTo(was.type());
      assertThat(is.offset()).isEqualTo(was.offset());
      assertThat(is.length()).isEqualTo(was.length());
      assertThat(is.inputFields()).isEqualTo(was.inputFields());
      assertThat(is.snapshotId()).isEqualTo(was.snapshotId());
      assertThat(is.sequenceNumber()).isEqualTo(was.sequenceNumber());
      assertThat(is.compressionCodec()).isEqualTo(was.compressionCodec());
      Map<String, String> expected = new HashMap<>(was.properties());
      expected.put(
          "referenced-data-file", mapping.map(was.properties().get("referenced-data-file")));
      assertThat(is.properties()).isEqualTo(expected);
      assertThat(is.properties().get("referenced-data-file")).startsWith(TARGET + "/data/");
      // the very same bytes at the very same place
      int from = (int) was.offset();
      int to = (int) (was.offset() + was.length());
      assertThat(Arrays.copyOfRange(replicaBytes, from, to))
          .isEqualTo(Arrays.copyOfRange(sourceBytes, from, to));
    }
    assertThat(footer(replica).properties()).isEqualTo(footer(source).properties());
  }

  /** The {@linkplain FuzzCampaign fuzz campaign} of bad input on a Puffin file Iceberg wrote. */
  @Test
  void mutatedDeletionVectorFilesEndInAResultOrASpecificError() throws IOException {
    byte[] original =
        java.nio.file.Files.readAllBytes(local(writeDeletionVectors().get(0).location()));
    FuzzCampaign.run(
        "deletion vectors",
        original,
        mutated ->
            DeletionVectorRewriter.rewrite(
                new ByteArraySeekableInput(mutated),
                java.io.OutputStream.nullOutputStream(),
                "dv.puffin",
                mapping::map));
  }

  @Test
  void referencedDataFilesAreReadFromTheFooterInItsOrder() throws IOException {
    List<DeleteFile> dvs = writeDeletionVectors();
    Path source = local(dvs.get(0).location());

    List<String> read =
        DeletionVectorRewriter.referencedDataFiles(DeleteFixtures.input(source), "dv.puffin");

    assertThat(read)
        .containsExactlyElementsOf(dvs.stream().map(DeleteFile::referencedDataFile).toList());
  }

  @Test
  void manifestOffsetsStillAddressTheDeletionVectorsInTheReplica() throws IOException {
    List<DeleteFile> dvs = writeDeletionVectors();
    Path source = local(dvs.get(0).location());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DeletionVectorRewriter.rewrite(DeleteFixtures.input(source), out, "dv.puffin", mapping::map);
    byte[] replica = out.toByteArray();

    for (DeleteFile dv : dvs) {
      byte[] blob =
          Arrays.copyOfRange(
              replica,
              dv.contentOffset().intValue(),
              (int) (dv.contentOffset() + dv.contentSizeInBytes()));
      PositionDeleteIndex index = PositionDeleteIndex.deserialize(blob, dv);
      assertThat(index.cardinality()).isEqualTo(dv.recordCount());
      int f =
          Integer.parseInt(dv.referencedDataFile().replaceAll(".*/0000(\\d)-data.parquet", "$1"));
      assertThat(index.isDeleted(f)).isTrue();
      assertThat(index.isDeleted(f + 7 + f)).isTrue();
      assertThat(index.isDeleted(f + 1)).isFalse();
    }
  }

  @Test
  void returnedLengthIsTheBytesWrittenAndDescribeAgrees() throws IOException {
    Path source = local(writeDeletionVectors().get(0).location());
    DeleteFixtures.TrackingOutput out = new DeleteFixtures.TrackingOutput();
    RewrittenFile result =
        DeletionVectorRewriter.rewrite(
            DeleteFixtures.input(source), out, "dv.puffin", mapping::map);

    assertThat(result.fileSizeInBytes()).isEqualTo(out.size());
    assertThat(result.splitOffsets()).isNull();
    assertThat(out.closed).isFalse();
    assertThat(
            DeletionVectorRewriter.describe(
                new ByteArraySeekableInput(out.toByteArray()), "replica.puffin"))
        .isEqualTo(result);
  }

  /** A Puffin file with file properties, a DV blob and a compressed blob of another type. */
  private Path writePuffin(String name, String referencedDataFile) throws IOException {
    Path file = dir.resolve(name);
    Puffin.WriteBuilder builder =
        Puffin.write(Files.localOutput(file.toFile()))
            .createdBy("replicator-test")
            .set("custom-file-property", "kept");
    try (PuffinWriter writer = builder.build()) {
      writer.add(
          new Blob(
              StandardBlobTypes.DV_V1,
              List.of(),
              -1,
              -1,
              ByteBuffer.wrap("not really a bitmap".getBytes(StandardCharsets.UTF_8)),
              null,
              Map.of("referenced-data-file", referencedDataFile, "cardinality", "3")));
      writer.add(
          new Blob(
              "some-other-blob-type",
              List.of(1, 2),
              42,
              7,
              ByteBuffer.wrap(new byte[300]),
              PuffinCompressionCodec.ZSTD,
              Map.of("note", "no referenced file")));
    }
    return file;
  }

  @Test
  void otherBlobsAndFilePropertiesAreKept() throws IOException {
    Path source = writePuffin("p.puffin", dataFile("x.parquet"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DeletionVectorRewriter.rewrite(DeleteFixtures.input(source), out, "p.puffin", mapping::map);
    Path replica = DeleteFixtures.save(dir, "replica.puffin", out);

    FileMetadata before = footer(source);
    FileMetadata after = footer(replica);
    assertThat(after.properties())
        .containsEntry("custom-file-property", "kept")
        .containsEntry("created-by", "replicator-test")
        .isEqualTo(before.properties());
    BlobMetadata other = after.blobs().get(1);
    assertThat(other.type()).isEqualTo("some-other-blob-type");
    assertThat(other.compressionCodec()).isEqualTo("zstd");
    assertThat(other.inputFields()).containsExactly(1, 2);
    assertThat(other.snapshotId()).isEqualTo(42);
    assertThat(other.sequenceNumber()).isEqualTo(7);
    assertThat(other.properties()).isEqualTo(Map.of("note", "no referenced file"));
    assertThat(after.blobs().get(0).properties())
        .containsEntry("referenced-data-file", TARGET + "/data/x.parquet")
        .containsEntry("cardinality", "3");

    Map<BlobMetadata, ByteBuffer> sourceBlobs = blobs(source);
    Map<BlobMetadata, ByteBuffer> replicaBlobs = blobs(replica);
    List<ByteBuffer> sourceData = new ArrayList<>();
    List<ByteBuffer> replicaData = new ArrayList<>();
    before.blobs().forEach(b -> sourceData.add(sourceBlobs.get(b)));
    after.blobs().forEach(b -> replicaData.add(replicaBlobs.get(b)));
    assertThat(replicaData).isEqualTo(sourceData);
  }

  @Test
  void lz4CompressedFooterIsMappedAndCompressedAgainWithTheSourceFlagsAndBlobsByteForByte()
      throws IOException {
    List<DeleteFile> dvs = writeDeletionVectors();
    byte[] source =
        Lz4PuffinFooters.compressFooter(
            java.nio.file.Files.readAllBytes(local(dvs.get(0).location())));
    assertThat(Lz4PuffinFooters.flags(source)).isEqualTo(1);

    DeleteFixtures.TrackingOutput out = new DeleteFixtures.TrackingOutput();
    RewrittenFile result =
        DeletionVectorRewriter.rewrite(
            new ByteArraySeekableInput(source), out, "dv.puffin", mapping::map);
    byte[] replica = out.toByteArray();

    assertThat(result.fileSizeInBytes()).isEqualTo(replica.length);
    assertThat(Lz4PuffinFooters.flags(replica)).isEqualTo(1);
    assertThat(Lz4PuffinFooters.isLz4FrameWithContentSize(Lz4PuffinFooters.storedPayload(replica)))
        .isTrue();
    int blobsEnd = Lz4PuffinFooters.footerStart(source);
    assertThat(Lz4PuffinFooters.footerStart(replica)).isEqualTo(blobsEnd);
    assertThat(Arrays.copyOfRange(replica, 0, blobsEnd))
        .isEqualTo(Arrays.copyOfRange(source, 0, blobsEnd));
    FileMetadata before = Lz4PuffinFooters.fileMetadata(source);
    FileMetadata after = Lz4PuffinFooters.fileMetadata(replica);
    assertThat(after.properties()).isEqualTo(before.properties());
    assertThat(after.blobs()).hasSize(3);
    for (int i = 0; i < 3; i++) {
      BlobMetadata was = before.blobs().get(i);
      BlobMetadata is = after.blobs().get(i);
      assertThat(is.offset()).isEqualTo(was.offset());
      assertThat(is.length()).isEqualTo(was.length());
      Map<String, String> expected = new HashMap<>(was.properties());
      expected.put(
          "referenced-data-file", mapping.map(was.properties().get("referenced-data-file")));
      assertThat(is.properties()).isEqualTo(expected);
      assertThat(is.properties().get("referenced-data-file")).startsWith(TARGET + "/data/");
    }
    for (DeleteFile dv : dvs) {
      byte[] blob =
          Arrays.copyOfRange(
              replica,
              dv.contentOffset().intValue(),
              (int) (dv.contentOffset() + dv.contentSizeInBytes()));
      assertThat(PositionDeleteIndex.deserialize(blob, dv).cardinality())
          .isEqualTo(dv.recordCount());
    }
    assertThat(DeletionVectorRewriter.describe(new ByteArraySeekableInput(replica), "r.puffin"))
        .isEqualTo(result);
  }

  @Test
  void footerFlaggedCompressedThatIsNoLz4FrameIsBadInputNamingTheFile() {
    byte[] file = handMadePuffin("{\"blobs\": []}", 1);
    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    new ByteArraySeekableInput(file),
                    new ByteArrayOutputStream(),
                    "s3://src/compressed.puffin",
                    mapping::map))
        .isExactlyInstanceOf(BadInputException.class)
        .hasMessageStartingWith(
            "Cannot read deletion vector file s3://src/compressed.puffin: footer payload is not a"
                + " valid LZ4 frame");
  }

  @Test
  void anLz4FooterThatDecompressesPastTheBoundIsBadInputAfterAtMostTheBound() throws IOException {
    // 64 MiB of spaces compress to about 256 KB; a reader without a bound would hold all of it
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    try (net.jpountz.lz4.LZ4FrameOutputStream out =
        new net.jpountz.lz4.LZ4FrameOutputStream(frame)) {
      byte[] spaces = new byte[1 << 20];
      Arrays.fill(spaces, (byte) ' ');
      for (int i = 0; i < 64; i++) {
        out.write(spaces);
      }
    }
    byte[] file = handMadePuffin(frame.toByteArray(), 1);
    assertThat(file.length).isLessThan(1 << 20);

    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    new ByteArraySeekableInput(file),
                    new ByteArrayOutputStream(),
                    "s3://src/bomb.puffin",
                    mapping::map))
        .isExactlyInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot read deletion vector file s3://src/bomb.puffin: Cannot decode the Puffin"
                + " footer's LZ4 frame: it decompresses to more than the limit of "
                + DecodeBounds.PUFFIN_FOOTER_BYTES
                + " bytes");
  }

  @Test
  void aFooterPayloadClaimingMoreThanTheBoundIsRefusedBeforeItIsRead() {
    // a file of 32 MiB whose footer claims all of it: never allocated
    byte[] json = new byte[32 << 20];
    Arrays.fill(json, (byte) ' ');
    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    new ByteArraySeekableInput(handMadePuffin(json, 0)),
                    new ByteArrayOutputStream(),
                    "big.puffin",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining(
            "Cannot decode the Puffin footer: it claims "
                + json.length
                + " bytes, more than the limit of "
                + DecodeBounds.PUFFIN_FOOTER_BYTES);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x100, 0x101})
  void unknownFooterFlagsAreUnsupported(int flags) {
    byte[] file = handMadePuffin("{\"blobs\": []}", flags);
    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    new ByteArraySeekableInput(file),
                    new ByteArrayOutputStream(),
                    "f.puffin",
                    mapping::map))
        .isExactlyInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("f.puffin")
        .hasMessageContaining("flags");
  }

  @Test
  void referencedDataFileOutsideTheMappingPropagatesPathOutsideMappingException()
      throws IOException {
    Path source = writePuffin("p.puffin", "s3://other-bucket/data/x.parquet");
    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    DeleteFixtures.input(source),
                    new ByteArrayOutputStream(),
                    "p.puffin",
                    mapping::map))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining("s3://other-bucket/data/x.parquet");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 4, 19, 60, -30, -13, -1})
  void truncatedInputIsBadInputNamingTheFile(int cut) throws IOException {
    Path source = local(writeDeletionVectors().get(0).location());
    int keep = cut >= 0 ? cut : (int) java.nio.file.Files.size(source) + cut;

    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    DeleteFixtures.truncated(source, keep),
                    new ByteArrayOutputStream(),
                    "s3://src/dv.puffin",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .isNotInstanceOf(PathOutsideMappingException.class)
        .hasMessageStartingWith("Cannot read deletion vector file s3://src/dv.puffin: ");
    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.describe(DeleteFixtures.truncated(source, keep), "r.puffin"))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read deletion vector file r.puffin: ");
  }

  /** Magic, one 4-byte blob, then a footer around the given payload. */
  private static byte[] handMadePuffin(String payload) {
    return handMadePuffin(payload, 0);
  }

  private static byte[] handMadePuffin(String payload, int flags) {
    return handMadePuffin(payload.getBytes(StandardCharsets.UTF_8), flags);
  }

  private static byte[] handMadePuffin(byte[] json, int flags) {
    ByteBuffer file =
        ByteBuffer.allocate(4 + 4 + 4 + json.length + 12).order(ByteOrder.LITTLE_ENDIAN);
    byte[] magic = {0x50, 0x46, 0x41, 0x31};
    file.put(magic).put(new byte[] {9, 9, 9, 9}).put(magic).put(json);
    file.putInt(json.length).putInt(flags).put(magic);
    return file.array();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"blobs\": [",
        "[1, 2]",
        "{\"properties\": {}}",
        "{\"blobs\": [{\"type\": \"deletion-vector-v1\", \"offset\": 4, \"length\": 400}]}",
        "{\"blobs\": [{\"type\": \"deletion-vector-v1\", \"offset\": 0, \"length\": 4}]}",
        "{\"blobs\": [{\"type\": \"deletion-vector-v1\", \"offset\": 4, \"length\": 4,"
            + " \"properties\": {\"referenced-data-file\": 17}}]}"
      })
  void corruptedFooterIsBadInputNamingTheFile(String payload) {
    assertThatThrownBy(
            () ->
                DeletionVectorRewriter.rewrite(
                    new ByteArraySeekableInput(handMadePuffin(payload)),
                    new ByteArrayOutputStream(),
                    "bad.puffin",
                    mapping::map))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read deletion vector file bad.puffin: ");
  }

  @Test
  void handMadeMinimalFooterIsAccepted() throws IOException {
    // the corrupted-footer cases above differ from this one only in the payload
    String payload =
        "{\"blobs\":[{\"type\":\"deletion-vector-v1\",\"fields\":[],\"snapshot-id\":-1,"
            + "\"sequence-number\":-1,\"offset\":4,\"length\":4,"
            + "\"properties\":{\"referenced-data-file\":\""
            + dataFile("y.parquet")
            + "\",\"cardinality\":\"1\"}}]}";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DeletionVectorRewriter.rewrite(
        new ByteArraySeekableInput(handMadePuffin(payload)), out, "ok.puffin", mapping::map);
    Path replica = DeleteFixtures.save(dir, "ok.puffin", out);
    assertThat(footer(replica).blobs().get(0).properties())
        .containsEntry("referenced-data-file", TARGET + "/data/y.parquet");
    assertThat(Arrays.copyOfRange(out.toByteArray(), 4, 8)).containsExactly(9, 9, 9, 9);
  }
}
