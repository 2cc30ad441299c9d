package io.icerepl.merge.io;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * How much any decoder of bytes from outside may produce, checked before anything is allocated: a
 * length read from a file (an Avro block's size, snappy's claimed length, a Puffin footer's) is a
 * claim, and a few compressed bytes can claim gigabytes. One home for these bounds, so that every
 * decoder refuses the same way: an {@link IOException} naming what claimed how much, which the
 * reader of the file turns into a bad-input error naming the table and file.
 */
public final class DecodeBounds {
  private DecodeBounds() {}

  /**
   * The largest Avro block, compressed or not. Writers flush a block every 64 KB or so (Avro's sync
   * interval; Iceberg's manifests and manifest lists use its default), so a block this large only
   * comes from one record far over any real manifest entry's size.
   */
  public static final int AVRO_BLOCK_BYTES = 64 * 1024 * 1024;

  /**
   * The largest Puffin footer payload, stored or decompressed: a JSON list of blobs, a few hundred
   * bytes each, so this holds tens of thousands of deletion vectors.
   */
  public static final int PUFFIN_FOOTER_BYTES = 16 * 1024 * 1024;

  /**
   * The largest Parquet page, decompressed. Writers close a page at about 1 MB (Iceberg's {@code
   * write.parquet.page-size-bytes}, Parquet's and Arrow's defaults); engines that size pages by row
   * count stay within a few tens of MB for a position delete's two or three columns.
   */
  public static final int PARQUET_PAGE_BYTES = 64 * 1024 * 1024;

  /**
   * The largest Parquet footer: its schema and one entry per column chunk, a few hundred bytes
   * each.
   */
  public static final int PARQUET_FOOTER_BYTES = 64 * 1024 * 1024;

  /**
   * The largest ORC compression block, as a file's postscript declares it: ORC's reader allocates a
   * buffer this large for every stream it decompresses. A chunk's header holds its length in 23
   * bits, so writers keep blocks to 8 MiB at most (ORC's default is 256 KiB).
   */
  public static final int ORC_COMPRESSION_BLOCK_BYTES = 16 * 1024 * 1024;

  /** The exception every bound throws. */
  public static final class BoundExceededException extends IOException {
    public BoundExceededException(String message) {
      super(message);
    }
  }

  /**
   * @param what what claims the length, e.g. "snappy block"
   * @throws BoundExceededException when {@code claimed} is negative or over {@code limit}
   */
  public static int checkClaim(String what, long claimed, int limit) throws BoundExceededException {
    if (claimed < 0 || claimed > limit) {
      throw new BoundExceededException(
          "Cannot decode "
              + what
              + ": it claims "
              + claimed
              + " bytes, more than the limit of "
              + limit);
    }
    return (int) claimed;
  }

  /**
   * Checks that a region a file's own index claims lies inside the file: a reader allocates such a
   * region as claimed before it reads it.
   *
   * @param what what claims the region, e.g. "row group 3's column file_path"
   * @throws BoundExceededException when it starts before the file or ends past it
   */
  public static void checkInside(String what, long offset, long length, long fileLength)
      throws BoundExceededException {
    if (offset < 0 || length < 0 || offset > fileLength || length > fileLength - offset) {
      throw new BoundExceededException(
          "Cannot decode "
              + what
              + ": it claims bytes "
              + offset
              + " to "
              + (offset + length)
              + " of a file of "
              + fileLength
              + " bytes");
    }
  }

  /** The first bound exceeded among {@code e} and its causes, if any: the reason to report. */
  public static Optional<BoundExceededException> exceeded(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof BoundExceededException bound) {
        return Optional.of(bound);
      }
    }
    return Optional.empty();
  }

  /**
   * Every byte {@code in} gives, as long as they are at most {@code limit}: reads one byte past it
   * at most, so a decompression bomb costs {@code limit} bytes of memory, not its size.
   *
   * @throws BoundExceededException when {@code in} gives more
   */
  public static byte[] readAtMost(InputStream in, String what, int limit) throws IOException {
    byte[] bytes = in.readNBytes(limit);
    if (in.read() >= 0) {
      throw new BoundExceededException(
          "Cannot decode "
              + what
              + ": it decompresses to more than the limit of "
              + limit
              + " bytes");
    }
    return bytes;
  }
}
