package io.icerepl.merge.manifest;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.DecodeBounds;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.apache.avro.file.DataFileConstants;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Passes an Avro object container file through unchanged while following its framing (header, then
 * blocks of: object count, byte size, bytes, sync marker), so that input which ends inside the
 * header or inside a block fails loudly.
 *
 * <p>Avro's own {@code DataFileStream} treats an end of input inside a block as the end of the
 * file, which would silently drop the entries of a truncated manifest. This stream instead throws
 * {@link TruncatedException}, which is an {@link IOException} but not an {@link EOFException}, so
 * that it reaches the caller. Input cut exactly after a sync marker cannot be told from a complete
 * file; that is a property of the format.
 *
 * <p>Closing this stream does not close the stream it reads.
 */
final class BlockFramedInputStream extends InputStream {

  /** The input ended inside the header or a block. */
  static final class TruncatedException extends IOException {
    TruncatedException(String message) {
      super(message);
    }
  }

  private final InputStream in;
  private final byte[] sync;
  private byte[] pending;
  private int pendingPos;
  private long blockRemaining;
  private long blocks;

  private BlockFramedInputStream(InputStream in, byte[] header, byte[] sync) {
    this.in = in;
    this.pending = header;
    this.sync = sync;
  }

  /** Reads and checks the header; the header bytes are served again by the returned stream. */
  static BlockFramedInputStream open(InputStream in, String noun) throws IOException {
    RecordingInputStream recording = new RecordingInputStream(in);
    BinaryDecoder decoder = DecoderFactory.get().directBinaryDecoder(recording, null);
    byte[] magic = new byte[DataFileConstants.MAGIC.length];
    try {
      decoder.readFixed(magic);
    } catch (EOFException e) {
      throw new BadInputException("Cannot read " + noun + ": it is not an Avro data file", e);
    }
    if (!Arrays.equals(magic, DataFileConstants.MAGIC)) {
      throw new BadInputException("Cannot read " + noun + ": it is not an Avro data file");
    }
    byte[] sync = new byte[DataFileConstants.SYNC_SIZE];
    try {
      for (long n = decoder.readMapStart(); n != 0; n = decoder.mapNext()) {
        for (long i = 0; i < n; i++) {
          decoder.skipString();
          decoder.skipBytes();
        }
      }
      decoder.readFixed(sync);
    } catch (EOFException e) {
      throw new TruncatedException("the input ends inside the Avro header");
    } catch (RuntimeException e) {
      // Avro's decoder refuses what it cannot read with several runtime exceptions (a header map
      // claiming more entries than Java holds is an UnsupportedOperationException): bad bytes all
      throw new IOException(e.getMessage(), e);
    }
    return new BlockFramedInputStream(in, recording.recorded(), sync);
  }

  byte[] sync() {
    return sync.clone();
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (pending == null && blockRemaining == 0 && !startBlock()) {
      return -1;
    }
    if (pending != null) {
      int n = Math.min(length, pending.length - pendingPos);
      System.arraycopy(pending, pendingPos, buffer, offset, n);
      pendingPos += n;
      if (pendingPos == pending.length) {
        pending = null;
        pendingPos = 0;
      }
      return n;
    }
    int n = in.read(buffer, offset, (int) Math.min(length, blockRemaining));
    if (n < 0) {
      throw new TruncatedException(
          "the input ends inside block " + blocks + ", " + blockRemaining + " bytes short");
    }
    blockRemaining -= n;
    return n;
  }

  /**
   * Reads the object count and byte size that open a block into {@code pending}; false at a clean
   * end of input.
   */
  private boolean startBlock() throws IOException {
    ByteArrayOutputStream frame = new ByteArrayOutputStream(20);
    int first = in.read();
    if (first < 0) {
      return false;
    }
    blocks++;
    long count = readVarLong(first, frame);
    long size = readVarLong(nextFrameByte(), frame);
    if (count < 0 || size < 0) {
      throw new IOException(
          "block " + blocks + " has an invalid object count " + count + " or size " + size);
    }
    // Avro allocates a block's claimed size before reading it: checked here, before it does
    DecodeBounds.checkClaim("block " + blocks, size, DecodeBounds.AVRO_BLOCK_BYTES);
    pending = frame.toByteArray();
    pendingPos = 0;
    blockRemaining = size + DataFileConstants.SYNC_SIZE;
    return true;
  }

  private int nextFrameByte() throws IOException {
    int b = in.read();
    if (b < 0) {
      throw new TruncatedException("the input ends inside the header of block " + blocks);
    }
    return b;
  }

  /** Decodes one zig-zag varint whose first byte was read, copying its bytes into {@code frame}. */
  private long readVarLong(int first, ByteArrayOutputStream frame) throws IOException {
    frame.write(first);
    long raw = first & 0x7f;
    int shift = 7;
    int b = first;
    while ((b & 0x80) != 0) {
      if (shift > 63) {
        throw new IOException("invalid varint in the header of block " + blocks);
      }
      b = nextFrameByte();
      frame.write(b);
      raw |= (long) (b & 0x7f) << shift;
      shift += 7;
    }
    return (raw >>> 1) ^ -(raw & 1);
  }

  @Override
  public void close() {}

  /** Keeps a copy of every byte read through it, so that the header can be passed on as read. */
  private static final class RecordingInputStream extends InputStream {
    private final InputStream in;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    RecordingInputStream(InputStream in) {
      this.in = in;
    }

    byte[] recorded() {
      return copy.toByteArray();
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        copy.write(b);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        copy.write(buffer, offset, n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      byte[] scratch = new byte[8192];
      long skipped = 0;
      while (skipped < n) {
        int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
        if (r < 0) {
          break;
        }
        skipped += r;
      }
      return skipped;
    }
  }
}
