package io.icerepl.merge.deletes;

import static io.icerepl.merge.deletes.DeleteFixtures.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.ByteArraySeekableInput;
import io.icerepl.merge.io.DecodeBounds;
import io.icerepl.merge.io.FuzzCampaign;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.orc.ORC;
import org.apache.iceberg.parquet.Parquet;
import org.apache.orc.OrcProto;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Position delete files come from the source, so every length their indexes claim is checked before
 * a reader allocates it ({@link DecodeBounds}): a few bytes claiming gigabytes are a clear error
 * naming the file, not an out-of-memory that stops every table. And a fuzz campaign of mutated
 * Parquet, ORC and Avro delete files written by Iceberg ends each case in a result or a specific
 * error.
 */
class DeleteFileBoundsTest {
  @TempDir Path dir;

  private Table table;
  private PathMapping mapping;

  @BeforeEach
  void createTable() {
    table = DeleteFixtures.createTable(dir, 2);
    mapping = PathMapping.of(table.location(), TARGET);
  }

  @ParameterizedTest
  @EnumSource(
      value = FileFormat.class,
      names = {"PARQUET", "ORC", "AVRO"})
  void mutatedDeleteFilesEndInAResultOrASpecificError(FileFormat format) throws IOException {
    byte[] original = java.nio.file.Files.readAllBytes(write(format));
    FuzzCampaign.run("position deletes " + format, original, mutated -> rewrite(format, mutated));
  }

  @Test
  void aParquetFooterClaimingMoreThanTheFileHoldsIsRefusedBeforeItIsRead() throws IOException {
    byte[] file = java.nio.file.Files.readAllBytes(write(FileFormat.PARQUET));
    ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(2_000_000_000);

    assertThatThrownBy(() -> rewrite(FileFormat.PARQUET, file))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("d.parquet")
        .hasMessageContaining("the Parquet footer")
        .hasMessageContaining("claims 2000000000 bytes, more than the limit");
  }

  @Test
  void aParquetColumnChunkClaimingATerabyteIsRefusedBeforeItIsRead() throws IOException {
    byte[] file = java.nio.file.Files.readAllBytes(write(FileFormat.PARQUET));
    int footerLength =
        ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int footerStart = file.length - 8 - footerLength;
    FileMetaData footer =
        Util.readFileMetaData(new ByteArrayInputStream(file, footerStart, footerLength));
    footer
        .getRow_groups()
        .get(0)
        .getColumns()
        .get(0)
        .getMeta_data()
        .setTotal_compressed_size(1L << 40);
    ByteArrayOutputStream patched = new ByteArrayOutputStream();
    patched.write(file, 0, footerStart);
    ByteArrayOutputStream newFooter = new ByteArrayOutputStream();
    Util.writeFileMetaData(footer, newFooter);
    patched.write(newFooter.toByteArray());
    byte[] length = new byte[4];
    ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).putInt(newFooter.size());
    patched.write(length);
    patched.write(new byte[] {'P', 'A', 'R', '1'});

    assertThatThrownBy(() -> rewrite(FileFormat.PARQUET, patched.toByteArray()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("row group 0's column")
        .hasMessageContaining("d.parquet")
        .hasMessageContaining("of a file of " + patched.size() + " bytes");
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionCodecName.class,
      names = {"SNAPPY", "ZSTD", "GZIP", "LZ4_RAW"})
  void aParquetPageClaimingAGigabyteIsRefusedBeforeItIsAllocated(CompressionCodecName codec) {
    ParquetCodecs codecs = new ParquetCodecs();
    try {
      assertThatThrownBy(
              () ->
                  codecs.getDecompressor(codec).decompress(BytesInput.from(new byte[16]), 1 << 30))
          .isInstanceOf(DecodeBounds.BoundExceededException.class)
          .hasMessageContaining(codec + " page")
          .hasMessageContaining(
              "claims 1073741824 bytes, more than the limit of " + DecodeBounds.PARQUET_PAGE_BYTES);
    } finally {
      codecs.release();
    }
  }

  @Test
  void anOrcCompressionBlockOfAGigabyteIsRefusedBeforeTheReaderAllocatesIt() throws IOException {
    byte[] file = java.nio.file.Files.readAllBytes(write(FileFormat.ORC));
    int postScriptLength = file[file.length - 1] & 0xff;
    int postScriptStart = file.length - 1 - postScriptLength;
    OrcProto.PostScript postScript =
        OrcProto.PostScript.parseFrom(Arrays.copyOfRange(file, postScriptStart, file.length - 1));
    assertThat(postScript.getCompression()).isNotEqualTo(OrcProto.CompressionKind.NONE);
    byte[] inflated =
        postScript.toBuilder().setCompressionBlockSize(1L << 30).build().toByteArray();
    ByteArrayOutputStream patched = new ByteArrayOutputStream();
    patched.write(file, 0, postScriptStart);
    patched.write(inflated);
    patched.write(inflated.length);

    assertThatThrownBy(() -> rewrite(FileFormat.ORC, patched.toByteArray()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("the ORC compression block size of d.orc")
        .hasMessageContaining("claims 1073741824 bytes, more than the limit");
  }

  @Test
  void anOrcFooterClaimingMoreThanTheFileHoldsIsRefused() throws IOException {
    byte[] file = java.nio.file.Files.readAllBytes(write(FileFormat.ORC));
    int postScriptLength = file[file.length - 1] & 0xff;
    int postScriptStart = file.length - 1 - postScriptLength;
    OrcProto.PostScript postScript =
        OrcProto.PostScript.parseFrom(Arrays.copyOfRange(file, postScriptStart, file.length - 1));
    byte[] inflated = postScript.toBuilder().setFooterLength(1L << 40).build().toByteArray();
    ByteArrayOutputStream patched = new ByteArrayOutputStream();
    patched.write(file, 0, postScriptStart);
    patched.write(inflated);
    patched.write(inflated.length);

    assertThatThrownBy(() -> rewrite(FileFormat.ORC, patched.toByteArray()))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("the ORC footer and metadata of d.orc")
        .hasMessageContaining("of a file of");
  }

  @ParameterizedTest
  @EnumSource(
      value = FileFormat.class,
      names = {"PARQUET", "ORC", "AVRO"})
  void theUnmutatedFilesRewrite(FileFormat format) throws IOException {
    byte[] original = java.nio.file.Files.readAllBytes(write(format));
    RewrittenFile rewritten = rewrite(format, original);
    assertThat(rewritten.fileSizeInBytes()).isPositive();
  }

  @Test
  void aDecoderThatNeverEndsIsStoppedAtItsDeadlineAndTheFileIsBadInput() throws Exception {
    Thread[] decoding = new Thread[1];
    assertThatThrownBy(
            () ->
                OrcDecodeGuard.within(
                    "d.orc",
                    Duration.ofMillis(300),
                    () -> {
                      decoding[0] = Thread.currentThread();
                      long spins = 0;
                      while (spins >= 0) {
                        spins++; // as ORC's readers spin on a stream that ends inside a run
                      }
                      return null;
                    }))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("d.orc")
        .hasMessageContaining("did not finish decoding it within 0 s");
    decoding[0].join(5_000);
    assertThat(decoding[0].isAlive()).as("the decoding thread is stopped").isFalse();
  }

  @Test
  void aDecoderThatEndsPassesItsResultAndItsErrorOn() throws Exception {
    assertThat(OrcDecodeGuard.within("d.orc", Duration.ofSeconds(5), () -> "done"))
        .isEqualTo("done");
    assertThatThrownBy(
            () ->
                OrcDecodeGuard.within(
                    "d.orc",
                    Duration.ofSeconds(5),
                    () -> {
                      throw new java.io.EOFException("short");
                    }))
        .isInstanceOf(java.io.EOFException.class)
        .hasMessage("short");
  }

  /**
   * ORC files are rewritten with a short decode deadline here, so that a spinning case is cheap.
   */
  private RewrittenFile rewrite(FileFormat format, byte[] bytes) {
    if (format == FileFormat.ORC) {
      try {
        return OrcPositionDeletes.rewrite(
            new ByteArraySeekableInput(bytes),
            OutputStream.nullOutputStream(),
            "d.orc",
            mapping::map,
            Duration.ofSeconds(2));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return PositionDeleteRewriter.rewrite(
        format.name(),
        new ByteArraySeekableInput(bytes),
        OutputStream.nullOutputStream(),
        "d." + format.name().toLowerCase(Locale.ROOT),
        mapping::map);
  }

  /** Deletes for two data files, written by Iceberg's writer of {@code format}. */
  private Path write(FileFormat format) throws IOException {
    Path file = dir.resolve("deletes." + format.name().toLowerCase(Locale.ROOT));
    OutputFile out = Files.localOutput(file.toFile());
    PositionDeleteWriter<Record> writer =
        switch (format) {
          case PARQUET ->
              Parquet.writeDeletes(out)
                  .setAll(table.properties())
                  .metricsConfig(MetricsConfig.forPositionDelete())
                  .withSpec(table.spec())
                  .overwrite()
                  .buildPositionWriter();
          case ORC ->
              ORC.writeDeletes(out)
                  .setAll(table.properties())
                  .metricsConfig(MetricsConfig.forPositionDelete())
                  .withSpec(table.spec())
                  .overwrite()
                  .buildPositionWriter();
          default ->
              Avro.writeDeletes(out)
                  .setAll(table.properties())
                  .metricsConfig(MetricsConfig.forPositionDelete())
                  .withSpec(table.spec())
                  .overwrite()
                  .buildPositionWriter();
        };
    try (writer) {
      for (String name : List.of("00000-a.parquet", "00001-b.parquet")) {
        for (int i = 0; i < 200; i++) {
          writer.write(
              DeleteFixtures.positionDelete(table.location() + "/data/" + name, i * 3L, null));
        }
      }
    }
    return file;
  }
}
