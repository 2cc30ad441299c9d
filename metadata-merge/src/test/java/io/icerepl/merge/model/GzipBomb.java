package io.icerepl.merge.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

/**
 * A small gzip file that inflates to a large one: {@code prefix}, then {@code count} copies of one
 * byte, then {@code suffix}. A run of one byte compresses about 1000:1, so hundreds of MiB inflated
 * fit in a few hundred KiB, as a hostile metadata file would.
 */
public final class GzipBomb {
  private GzipBomb() {}

  public static byte[] of(String prefix, char filler, long count, String suffix) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes, 64 * 1024)) {
      gzip.write(prefix.getBytes(StandardCharsets.UTF_8));
      byte[] chunk = new byte[1 << 20];
      Arrays.fill(chunk, (byte) filler);
      for (long left = count; left > 0; left -= chunk.length) {
        gzip.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
      gzip.write(suffix.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
