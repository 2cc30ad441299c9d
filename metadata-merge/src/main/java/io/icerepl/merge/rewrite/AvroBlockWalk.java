package io.icerepl.merge.rewrite;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

/**
 * Walks an Avro object container file's framing without decoding records: header (magic,
 * metadata map, sync marker), then blocks of {@code count, size, data, sync}. Avro's own readers
 * take an end of input in the middle of a block for the end of the file, so a truncated file
 * would silently lose rows; this walk notices, and counts the records the file must yield.
 */
final class AvroBlockWalk {
  private static final byte[] MAGIC = {'O', 'b', 'j', 1};
  private static final int SYNC_SIZE = 16;
  private static final int BUFFER_SIZE = 8 * 1024;

  private final SeekableInput in;
  private final long length;
  private final String fileName;
  private final byte[] buffer = new byte[BUFFER_SIZE];
  private long bufferStart = 0;
  private int bufferLength = 0;
  private long pos = 0;

  private AvroBlockWalk(SeekableInput in, long length, String fileName) {
    this.in = in;
    this.length = length;
    this.fileName = fileName;
  }

  /** The number of records in the file; BadInputException when its framing is broken. */
  static long countRecords(SeekableInput in, String fileName) throws IOException {
    AvroBlockWalk walk = new AvroBlockWalk(in, in.length(), fileName);
    return walk.walk();
  }

  private long walk() throws IOException {
    if (!Arrays.equals(readBytes(MAGIC.length), MAGIC)) {
      throw bad("it is not an Avro data file (no magic)");
    }
    // metadata: a map of string -> bytes, as blocks ending with a zero count
    while (true) {
      long count = readLong();
      if (count == 0) {
        break;
      }
      if (count < 0) {
        count = -count;
        readLong(); // the block's size in bytes
      }
      for (long i = 0; i < count; i++) {
        skip(readLength()); // key
        skip(readLength()); // value
      }
    }
    byte[] sync = readBytes(SYNC_SIZE);
    long records = 0;
    while (pos < length) {
      long count = readLong();
      long size = readLong();
      if (count < 0 || size < 0) {
        throw bad("block at " + pos + " has a negative record count or size");
      }
      if (size > length - pos || SYNC_SIZE > length - pos - size) {
        throw truncated(
            "block of " + size + " bytes at " + pos + " runs past the end of the file (" + length
                + " bytes)");
      }
      skip(size);
      if (!Arrays.equals(readBytes(SYNC_SIZE), sync)) {
        throw bad("block ending at " + pos + " is not followed by the file's sync marker");
      }
      records += count;
    }
    return records;
  }

  private long readLength() throws IOException {
    long n = readLong();
    if (n < 0) {
      throw bad("negative length " + n + " in the header");
    }
    return n;
  }

  /** Avro's zig-zag variable-length long. */
  private long readLong() throws IOException {
    long raw = 0;
    int shift = 0;
    while (true) {
      int b = readByte();
      raw |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
      shift += 7;
      if (shift > 63) {
        throw bad("malformed variable-length integer at " + pos);
      }
    }
    return (raw >>> 1) ^ -(raw & 1);
  }

  private int readByte() throws IOException {
    if (pos >= length) {
      throw truncated("unexpected end of file at " + pos);
    }
    if (pos < bufferStart || pos >= bufferStart + bufferLength) {
      bufferStart = pos;
      bufferLength = (int) Math.min(BUFFER_SIZE, length - pos);
      in.readFully(bufferStart, buffer, 0, bufferLength);
    }
    int b = buffer[(int) (pos - bufferStart)] & 0xFF;
    pos += 1;
    return b;
  }

  private byte[] readBytes(int n) throws IOException {
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      bytes[i] = (byte) readByte();
    }
    return bytes;
  }

  private void skip(long n) {
    if (n > length - pos) {
      throw truncated("unexpected end of file after " + pos);
    }
    pos += n;
  }

  /** Truncation, with an EOFException as the cause that Avro's readers swallow. */
  private BadInputException truncated(String reason) {
    return new BadInputException(
        "Cannot read position delete file " + fileName + ": " + reason + ": truncated",
        new EOFException(reason));
  }

  private BadInputException bad(String reason) {
    return new BadInputException("Cannot read position delete file " + fileName + ": " + reason);
  }
}
