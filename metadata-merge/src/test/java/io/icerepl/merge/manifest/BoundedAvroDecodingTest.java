package io.icerepl.merge.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.airlift.compress.zstd.ZstdCompressor;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.DecodeBounds;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every Avro block decoder is bounded: a small file claiming a huge block, or a block that
 * decompresses to gigabytes, is an error naming the file, after at most {@link
 * DecodeBounds#AVRO_BLOCK_BYTES} bytes of memory, never an out-of-memory error.
 */
class BoundedAvroDecodingTest {
  private static final Schema SCHEMA =
      SchemaBuilder.record("r").fields().requiredString("manifest_path").endRecord();
  private static final String LIMIT = "more than the limit of " + DecodeBounds.AVRO_BLOCK_BYTES;

  @BeforeAll
  static void codecs() {
    AvroCodecs.register();
  }

  @Test
  void aSnappyBlockClaimingGigabytesIsRefusedBeforeAnythingIsAllocated() {
    byte[] block =
        concat(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 7}, new byte[8]);

    assertThatThrownBy(() -> new AvroCodecs.Snappy().decompress(ByteBuffer.wrap(block)))
        .isInstanceOf(DecodeBounds.BoundExceededException.class)
        .hasMessage("Cannot decode snappy block: it claims 2147483647 bytes, " + LIMIT);
  }

  @Test
  void aManifestListOfAFewBytesWhoseSnappyBlockClaimsGigabytesFailsNamingTheFile()
      throws IOException {
    byte[] file = container(CodecFactory.snappyCodec());
    Block block = Block.of(file);
    // the block's data starts with snappy's varint of the uncompressed length: claim 2 GiB - 1
    byte[] data = Arrays.copyOfRange(file, block.dataStart, block.dataEnd);
    int varint = 0;
    while ((data[varint] & 0x80) != 0) {
      varint++;
    }
    byte[] inflated =
        concat(
            new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 7},
            Arrays.copyOfRange(data, varint + 1, data.length));
    byte[] bomb = block.withData(file, inflated);
    assertThat(bomb.length).isLessThan(2_000);

    AvroContainer avro =
        AvroContainer.open(new ByteArrayInputStream(bomb), "manifest list snap-1.avro");
    assertThatThrownBy(avro::next)
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read manifest list snap-1.avro: record 1 is unreadable: ")
        .hasMessageContaining("Cannot decode snappy block: it claims 2147483647 bytes, " + LIMIT);
  }

  @Test
  void aBlockWhoseSizeClaimsGigabytesIsRefusedBeforeAvroAllocatesIt() throws IOException {
    byte[] file = container(CodecFactory.nullCodec());
    Block block = Block.of(file);
    // size 2^31 - 1 as Avro's zig-zag varint: 0xfe 0xff 0xff 0xff 0x0f
    byte[] claimed =
        concat(
            Arrays.copyOfRange(file, 0, block.sizeStart),
            new byte[] {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f},
            Arrays.copyOfRange(file, block.dataStart, file.length));

    assertThatThrownBy(
            () -> AvroContainer.open(new ByteArrayInputStream(claimed), "manifest m.avro").next())
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot read manifest m.avro: ")
        .hasMessageContaining("Cannot decode block 1: it claims 2147483647 bytes, " + LIMIT);
  }

  @Test
  void aZstandardBlockOfEightGibibytesStopsJustPastTheBound() {
    // 8,192 frames of 1 MiB of zeros each: about 100 KB that a reader without a bound would try
    // to hold as 8 GiB
    ZstdCompressor compressor = new ZstdCompressor();
    byte[] zeros = new byte[1 << 20];
    byte[] frame = new byte[compressor.maxCompressedLength(zeros.length)];
    int length = compressor.compress(zeros, 0, zeros.length, frame, 0, frame.length);
    ByteArrayOutputStream bomb = new ByteArrayOutputStream();
    for (int i = 0; i < 8192; i++) {
      bomb.write(frame, 0, length);
    }
    assertThat(bomb.size()).isLessThan(1 << 20);

    assertThatThrownBy(
            () -> new AvroCodecs.Zstandard().decompress(ByteBuffer.wrap(bomb.toByteArray())))
        .isInstanceOf(DecodeBounds.BoundExceededException.class)
        .hasMessage("Cannot decode zstandard block: it decompresses to " + LIMIT + " bytes");
  }

  @Test
  void aDeflateBlockOverTheBoundIsRefusedAndOneWithinItRoundTrips() throws IOException {
    AvroCodecs.Deflate small = new AvroCodecs.Deflate(1024);
    ByteBuffer within = small.compress(ByteBuffer.wrap(new byte[1024]));
    ByteBuffer over = small.compress(ByteBuffer.wrap(new byte[1025]));

    assertThat(small.decompress(within).remaining()).isEqualTo(1024);
    assertThatThrownBy(() -> small.decompress(over))
        .isInstanceOf(DecodeBounds.BoundExceededException.class)
        .hasMessage(
            "Cannot decode deflate block: it decompresses to more than the limit of 1024 bytes");
  }

  @Test
  void everyBoundedCodecReadsWhatAvroWrites() throws IOException {
    for (CodecFactory codec :
        new CodecFactory[] {
          CodecFactory.snappyCodec(), CodecFactory.zstandardCodec(3), CodecFactory.deflateCodec(6)
        }) {
      AvroContainer avro =
          AvroContainer.open(new ByteArrayInputStream(container(codec)), "manifest list l.avro");
      assertThat(avro.next().get("manifest_path").toString())
          .as(codec.toString())
          .isEqualTo("s3://b/m.avro");
      assertThat(avro.next()).isNull();
    }
  }

  /** A container of one block holding one record, written by Avro with {@code codec}. */
  private static byte[] container(CodecFactory codec) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataFileWriter<GenericRecord> writer =
        new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(SCHEMA))) {
      writer.setCodec(codec);
      writer.create(SCHEMA, out);
      GenericRecord record = new GenericData.Record(SCHEMA);
      record.put("manifest_path", "s3://b/m.avro");
      writer.append(record);
    }
    return out.toByteArray();
  }

  /** Where the only block of a container lies: after the header, before the final sync marker. */
  private record Block(int sizeStart, int dataStart, int dataEnd) {
    static Block of(byte[] file) {
      byte[] sync = Arrays.copyOfRange(file, file.length - 16, file.length);
      int headerEnd = indexOf(file, sync) + 16;
      int count = headerEnd;
      int sizeStart = count;
      while ((file[sizeStart] & 0x80) != 0) {
        sizeStart++;
      }
      sizeStart++;
      int dataStart = sizeStart;
      while ((file[dataStart] & 0x80) != 0) {
        dataStart++;
      }
      dataStart++;
      return new Block(sizeStart, dataStart, file.length - 16);
    }

    /** The file with this block's data replaced, its size varint written anew. */
    byte[] withData(byte[] file, byte[] data) {
      return concat(
          Arrays.copyOfRange(file, 0, sizeStart),
          zigZag(data.length),
          data,
          Arrays.copyOfRange(file, dataEnd, file.length));
    }

    private static int indexOf(byte[] bytes, byte[] part) {
      for (int i = 0; i + part.length <= bytes.length; i++) {
        if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
          return i;
        }
      }
      throw new AssertionError("no sync marker");
    }
  }

  private static byte[] zigZag(long value) {
    long n = (value << 1) ^ (value >> 63);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while ((n & ~0x7fL) != 0) {
      out.write((int) ((n & 0x7f) | 0x80));
      n >>>= 7;
    }
    out.write((int) n);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
