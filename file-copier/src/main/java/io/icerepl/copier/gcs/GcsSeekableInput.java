package io.icerepl.copier.gcs;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobSourceOption;
import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Random access by ranged reads of one generation of an object: each read seeks a read channel and
 * limits it to the range, so GCS sends that range alone. Each fetch takes at least the read-ahead
 * size, aligned to end at the object's end when near it, since Parquet and Puffin read a short tail
 * and then the footer just before it. The generation is a precondition of every read, so an object
 * replaced while open fails the read instead of mixing two objects' bytes.
 */
final class GcsSeekableInput implements SeekableInput {
  private final Storage storage;
  private final String path;
  private final BlobId id;
  private final long generation;
  private final long length;
  private final int readAhead;
  private byte[] window = new byte[0];
  private long windowStart;

  GcsSeekableInput(
      Storage storage, String path, BlobId id, long generation, long length, int readAhead) {
    this.storage = storage;
    this.path = path;
    this.id = id;
    this.generation = generation;
    this.length = length;
    this.readAhead = readAhead;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int count) throws IOException {
    if (position < 0 || count < 0) {
      throw new IllegalArgumentException(
          "Cannot read " + path + " at " + position + ": negative position or length " + count);
    }
    if (position + count > length) {
      throw new EOFException(
          "Cannot read "
              + path
              + " at "
              + position
              + ": "
              + count
              + " bytes pass the end of file (length "
              + length
              + ")");
    }
    if (count == 0) {
      return;
    }
    if (position < windowStart || position + count > windowStart + window.length) {
      if (count >= readAhead) {
        System.arraycopy(fetch(position, position + count), 0, buffer, offset, count);
        return;
      }
      long end = Math.min(length, position + readAhead);
      windowStart = Math.max(0, end - readAhead);
      window = fetch(windowStart, end);
    }
    System.arraycopy(window, (int) (position - windowStart), buffer, offset, count);
  }

  private byte[] fetch(long start, long end) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate((int) (end - start));
    GcsErrors.run(
        "read",
        path,
        () -> {
          try (ReadChannel channel =
              storage.reader(id, BlobSourceOption.generationMatch(generation))) {
            channel.seek(start);
            channel.limit(end);
            while (bytes.hasRemaining() && channel.read(bytes) >= 0) {
              // until the range is read, or the object ends early
            }
          }
          return null;
        });
    if (bytes.hasRemaining()) {
      throw new IOException(
          "Cannot read "
              + path
              + " at "
              + start
              + ": got "
              + bytes.position()
              + " bytes instead of "
              + (end - start)
              + ", the object changed while open");
    }
    return bytes.array();
  }
}
