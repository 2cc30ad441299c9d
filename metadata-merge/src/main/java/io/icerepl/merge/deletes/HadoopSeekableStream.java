package io.icerepl.merge.deletes;

import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.fs.PositionedReadable;
import org.apache.hadoop.fs.Seekable;

/**
 * A {@link SeekableInput} as the seekable, positioned-readable stream Hadoop's FSDataInputStream
 * wraps, for libraries (ORC) that read through a Hadoop FileSystem. Not thread-safe.
 */
final class HadoopSeekableStream extends InputStream implements Seekable, PositionedReadable {
  private final SeekableInput in;
  private final long length;
  private long position = 0;

  HadoopSeekableStream(SeekableInput in) throws IOException {
    this.in = in;
    this.length = in.length();
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] buffer, int offset, int count) throws IOException {
    int n = read(position, buffer, offset, count);
    if (n > 0) {
      position += n;
    }
    return n;
  }

  @Override
  public int read(long at, byte[] buffer, int offset, int count) throws IOException {
    if (count == 0) {
      return 0;
    }
    if (at >= length) {
      return -1;
    }
    int n = (int) Math.min(count, length - at);
    in.readFully(at, buffer, offset, n);
    return n;
  }

  @Override
  public void readFully(long at, byte[] buffer, int offset, int count) throws IOException {
    if (at < 0 || at > length - count) {
      throw new EOFException(
          "Cannot read " + count + " bytes at " + at + " of a file of " + length + " bytes");
    }
    in.readFully(at, buffer, offset, count);
  }

  @Override
  public void readFully(long at, byte[] buffer) throws IOException {
    readFully(at, buffer, 0, buffer.length);
  }

  @Override
  public void seek(long to) throws IOException {
    if (to < 0 || to > length) {
      throw new EOFException("Cannot seek to " + to + " in a file of " + length + " bytes");
    }
    position = to;
  }

  @Override
  public long getPos() {
    return position;
  }

  @Override
  public boolean seekToNewSource(long target) {
    return false;
  }

  @Override
  public int available() {
    return (int) Math.min(Integer.MAX_VALUE, length - position);
  }
}
