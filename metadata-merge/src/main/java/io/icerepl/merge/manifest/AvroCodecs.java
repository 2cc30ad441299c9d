package io.icerepl.merge.manifest;

import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdInputStream;
import io.icerepl.merge.io.DecodeBounds;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;
import org.apache.avro.file.Codec;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileConstants;

/**
 * Avro's zstandard and snappy block codecs on aircompressor's pure-Java implementations, in place
 * of Avro's own, which load zstd-jni and snappy-java with native libraries for every platform. Avro
 * resolves a container's codec by name from one registry for the whole JVM, so these replace the
 * built-in ones there: a zstandard block is one or more zstd frames, a snappy block is a raw snappy
 * block followed by the big-endian CRC32 of the uncompressed bytes, as Avro writes them.
 *
 * <p>Each decompression is bounded ({@link DecodeBounds#AVRO_BLOCK_BYTES}): a snappy block's
 * claimed length is checked before anything is allocated, and zstandard and deflate blocks (Avro's
 * own deflate codec is replaced for this) stop one byte past the bound, so a small file claiming a
 * huge block is an error for its table, never an out-of-memory error for the service.
 */
final class AvroCodecs {
  private AvroCodecs() {}

  /** Called once, before the first container is opened; registering again changes nothing. */
  static void register() {
    CodecFactory.addCodec(DataFileConstants.ZSTANDARD_CODEC, new Factory(Zstandard::new));
    CodecFactory.addCodec(DataFileConstants.SNAPPY_CODEC, new Factory(Snappy::new));
    CodecFactory.addCodec(DataFileConstants.DEFLATE_CODEC, new Factory(Deflate::new));
  }

  private static final class Factory extends CodecFactory {
    private final Supplier<Codec> codec;

    Factory(Supplier<Codec> codec) {
      this.codec = codec;
    }

    @Override
    protected Codec createInstance() {
      return codec.get();
    }
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  static final class Zstandard extends Codec {
    private final ZstdCompressor compressor = new ZstdCompressor();
    private final int limit;

    Zstandard() {
      this(DecodeBounds.AVRO_BLOCK_BYTES);
    }

    Zstandard(int limit) {
      this.limit = limit;
    }

    @Override
    public String getName() {
      return DataFileConstants.ZSTANDARD_CODEC;
    }

    @Override
    public ByteBuffer compress(ByteBuffer uncompressed) {
      byte[] in = bytes(uncompressed);
      byte[] out = new byte[compressor.maxCompressedLength(in.length)];
      int length = compressor.compress(in, 0, in.length, out, 0, out.length);
      return ByteBuffer.wrap(out, 0, length);
    }

    /** A streaming read: frames written by a stream need not state their content size. */
    @Override
    public ByteBuffer decompress(ByteBuffer compressed) throws IOException {
      try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(bytes(compressed)))) {
        return ByteBuffer.wrap(DecodeBounds.readAtMost(in, "zstandard block", limit));
      }
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Zstandard;
    }

    @Override
    public int hashCode() {
      return getName().hashCode();
    }
  }

  static final class Snappy extends Codec {
    private static final int CHECKSUM_BYTES = 4;
    private final SnappyCompressor compressor = new SnappyCompressor();
    private final SnappyDecompressor decompressor = new SnappyDecompressor();
    private final CRC32 crc32 = new CRC32();
    private final int limit;

    Snappy() {
      this(DecodeBounds.AVRO_BLOCK_BYTES);
    }

    Snappy(int limit) {
      this.limit = limit;
    }

    @Override
    public String getName() {
      return DataFileConstants.SNAPPY_CODEC;
    }

    @Override
    public ByteBuffer compress(ByteBuffer uncompressed) {
      byte[] in = bytes(uncompressed);
      byte[] out = new byte[compressor.maxCompressedLength(in.length) + CHECKSUM_BYTES];
      int length = compressor.compress(in, 0, in.length, out, 0, out.length - CHECKSUM_BYTES);
      ByteBuffer block = ByteBuffer.wrap(out, 0, length + CHECKSUM_BYTES);
      block.putInt(length, checksum(in, in.length));
      return block;
    }

    @Override
    public ByteBuffer decompress(ByteBuffer compressed) throws IOException {
      byte[] in = bytes(compressed);
      if (in.length < CHECKSUM_BYTES) {
        throw new IOException("Cannot decompress a snappy block: it has no checksum");
      }
      int length = in.length - CHECKSUM_BYTES;
      byte[] out =
          new byte
              [DecodeBounds.checkClaim(
                  "snappy block", SnappyDecompressor.getUncompressedLength(in, 0), limit)];
      int size = decompressor.decompress(in, 0, length, out, 0, out.length);
      if (ByteBuffer.wrap(in).getInt(length) != checksum(out, size)) {
        throw new IOException("Cannot decompress a snappy block: checksum mismatch");
      }
      return ByteBuffer.wrap(out, 0, size);
    }

    private int checksum(byte[] bytes, int length) {
      crc32.reset();
      crc32.update(bytes, 0, length);
      return (int) crc32.getValue();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Snappy;
    }

    @Override
    public int hashCode() {
      return getName().hashCode();
    }
  }

  /** Avro's deflate: raw deflate (no zlib header) at the default level, as Avro writes it. */
  static final class Deflate extends Codec {
    private final int limit;

    Deflate() {
      this(DecodeBounds.AVRO_BLOCK_BYTES);
    }

    Deflate(int limit) {
      this.limit = limit;
    }

    @Override
    public String getName() {
      return DataFileConstants.DEFLATE_CODEC;
    }

    @Override
    public ByteBuffer compress(ByteBuffer uncompressed) throws IOException {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
      try (DeflaterOutputStream stream = new DeflaterOutputStream(out, deflater)) {
        stream.write(bytes(uncompressed));
      } finally {
        deflater.end();
      }
      return ByteBuffer.wrap(out.toByteArray());
    }

    /**
     * Inflates in steps into a buffer that never grows past the bound; input that ends before the
     * final deflate block, or goes on after it, is corrupt.
     */
    @Override
    public ByteBuffer decompress(ByteBuffer compressed) throws IOException {
      byte[] in = bytes(compressed);
      Inflater inflater = new Inflater(true);
      try {
        inflater.setInput(in);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[64 * 1024];
        while (!inflater.finished()) {
          int n = inflater.inflate(chunk);
          if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
            throw new IOException("Cannot decode deflate block: it ends before its last block");
          }
          if (out.size() + n > limit) {
            throw new DecodeBounds.BoundExceededException(
                "Cannot decode deflate block: it decompresses to more than the limit of "
                    + limit
                    + " bytes");
          }
          out.write(chunk, 0, n);
        }
        if (inflater.getRemaining() > 0) {
          throw new IOException(
              "Cannot decode deflate block: "
                  + inflater.getRemaining()
                  + " bytes follow its last block");
        }
        return ByteBuffer.wrap(out.toByteArray());
      } catch (DataFormatException e) {
        throw new IOException("Cannot decode deflate block: " + e.getMessage(), e);
      } finally {
        inflater.end();
      }
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Deflate;
    }

    @Override
    public int hashCode() {
      return getName().hashCode();
    }
  }
}
