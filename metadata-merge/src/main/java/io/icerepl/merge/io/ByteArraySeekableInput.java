package io.icerepl.merge.io;

import java.io.EOFException;

/** A {@link SeekableInput} over bytes already in memory. */
public final class ByteArraySeekableInput implements SeekableInput {
  private final byte[] bytes;

  public ByteArraySeekableInput(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public long length() {
    return bytes.length;
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws EOFException {
    if (position < 0 || position + length > bytes.length) {
      throw new EOFException(
          "Cannot read " + length + " bytes at " + position + ": file has " + bytes.length);
    }
    System.arraycopy(bytes, (int) position, buffer, offset, length);
  }
}
