package io.icerepl.merge.deletes;

import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A Parquet {@link InputFile} over a {@link SeekableInput}: no Hadoop FileSystem involved. */
final class SeekableInputFile implements InputFile {
  private static final int COPY_CHUNK = 64 * 1024;

  private final SeekableInput input;

  SeekableInputFile(SeekableInput input) {
    this.input = input;
  }

  @Override
  public long getLength() throws IOException {
    return input.length();
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    return new Stream(input, input.length());
  }

  /** Reads go straight to the SeekableInput at the current position; nothing is buffered. */
  private static final class Stream extends SeekableInputStream {
    private final SeekableInput input;
    private final long length;
    private long pos = 0;

    Stream(SeekableInput input, long length) {
      this.input = input;
      this.length = length;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos < 0) {
        throw new EOFException("Cannot seek to negative position " + newPos);
      }
      pos = newPos;
    }

    @Override
    public int read() throws IOException {
      if (pos >= length) {
        return -1;
      }
      byte[] one = new byte[1];
      input.readFully(pos, one, 0, 1);
      pos += 1;
      return one[0] & 0xFF;
    }

    @Override
    public int read(byte[] buffer, int offset, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      long remaining = length - pos;
      if (remaining <= 0) {
        return -1;
      }
      int n = (int) Math.min(len, remaining);
      input.readFully(pos, buffer, offset, n);
      pos += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, length - pos));
      pos += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, Math.max(0, length - pos));
    }

    @Override
    public void readFully(byte[] buffer) throws IOException {
      readFully(buffer, 0, buffer.length);
    }

    @Override
    public void readFully(byte[] buffer, int offset, int len) throws IOException {
      if (pos + len > length) {
        throw new EOFException("Cannot read " + len + " bytes at " + pos + ": file has " + length);
      }
      input.readFully(pos, buffer, offset, len);
      pos += len;
    }

    @Override
    public int read(ByteBuffer buffer) throws IOException {
      if (!buffer.hasRemaining()) {
        return 0;
      }
      long remaining = length - pos;
      if (remaining <= 0) {
        return -1;
      }
      int n = (int) Math.min(buffer.remaining(), remaining);
      fill(buffer, n);
      return n;
    }

    @Override
    public void readFully(ByteBuffer buffer) throws IOException {
      int n = buffer.remaining();
      if (pos + n > length) {
        throw new EOFException("Cannot read " + n + " bytes at " + pos + ": file has " + length);
      }
      fill(buffer, n);
    }

    private void fill(ByteBuffer buffer, int n) throws IOException {
      if (buffer.hasArray()) {
        input.readFully(pos, buffer.array(), buffer.arrayOffset() + buffer.position(), n);
        buffer.position(buffer.position() + n);
        pos += n;
        return;
      }
      byte[] chunk = new byte[Math.min(n, COPY_CHUNK)];
      int left = n;
      while (left > 0) {
        int step = Math.min(left, chunk.length);
        input.readFully(pos, chunk, 0, step);
        buffer.put(chunk, 0, step);
        pos += step;
        left -= step;
      }
    }
  }
}
