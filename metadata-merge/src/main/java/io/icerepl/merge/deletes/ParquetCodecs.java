package io.icerepl.merge.deletes;

import io.airlift.compress.Compressor;
import io.airlift.compress.Decompressor;
import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import io.icerepl.merge.io.DecodeBounds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Parquet page codecs for the delete rewrite. ZSTD (Iceberg's default) and SNAPPY pages go through
 * aircompressor's pure-Java codecs, so the service needs neither zstd-jni nor snappy-java and their
 * native libraries for every platform; the other codecs are Parquet's own. A page of either codec
 * is one raw block: a zstd frame, or a snappy block without framing, as every Parquet writer makes
 * them. One factory serves one file's rewrite, on one thread.
 */
final class ParquetCodecs implements CompressionCodecFactory {
  private final CodecFactory parquet = new CodecFactory(new Configuration(false), 0);

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return switch (codec) {
      case ZSTD -> new PageCompressor(codec, new ZstdCompressor());
      case SNAPPY -> new PageCompressor(codec, new SnappyCompressor());
      default -> parquet.getCompressor(codec);
    };
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return switch (codec) {
      case ZSTD -> new PageDecompressor(codec, new ZstdDecompressor());
      case SNAPPY -> new PageDecompressor(codec, new SnappyDecompressor());
      default -> new Bounded(codec, parquet.getDecompressor(codec));
    };
  }

  /**
   * A page's header claims its decompressed size, and every decompressor allocates it before it
   * reads a byte: the claim is checked first.
   */
  private static int checkClaim(CompressionCodecName codec, int uncompressedSize)
      throws IOException {
    return DecodeBounds.checkClaim(
        codec + " page", uncompressedSize, DecodeBounds.PARQUET_PAGE_BYTES);
  }

  /** Parquet's own decompressor for the other codecs, behind the same check. */
  private record Bounded(CompressionCodecName codec, BytesInputDecompressor decompressor)
      implements BytesInputDecompressor {
    @Override
    public BytesInput decompress(BytesInput page, int uncompressedSize) throws IOException {
      return decompressor.decompress(page, checkClaim(codec, uncompressedSize));
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
        throws IOException {
      decompressor.decompress(input, compressedSize, output, checkClaim(codec, uncompressedSize));
    }

    @Override
    public void release() {
      decompressor.release();
    }
  }

  @Override
  public void release() {
    parquet.release();
  }

  private record PageCompressor(CompressionCodecName codec, Compressor compressor)
      implements BytesInputCompressor {
    @Override
    public BytesInput compress(BytesInput page) throws IOException {
      byte[] in = page.toByteArray();
      byte[] out = new byte[compressor.maxCompressedLength(in.length)];
      int length = compressor.compress(in, 0, in.length, out, 0, out.length);
      return BytesInput.from(Arrays.copyOf(out, length));
    }

    @Override
    public CompressionCodecName getCodecName() {
      return codec;
    }

    @Override
    public void release() {}
  }

  private record PageDecompressor(CompressionCodecName codec, Decompressor decompressor)
      implements BytesInputDecompressor {
    @Override
    public BytesInput decompress(BytesInput page, int uncompressedSize) throws IOException {
      byte[] out = new byte[checkClaim(codec, uncompressedSize)];
      byte[] in = page.toByteArray();
      int length = decompressor.decompress(in, 0, in.length, out, 0, out.length);
      if (length != uncompressedSize) {
        throw new IOException(
            "Cannot decompress a "
                + codec
                + " page: "
                + length
                + " bytes where its header says "
                + uncompressedSize);
      }
      return BytesInput.from(out);
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
        throws IOException {
      byte[] in = new byte[compressedSize];
      input.get(in);
      output.put(decompress(BytesInput.from(in), uncompressedSize).toByteArray());
    }

    @Override
    public void release() {}
  }
}
