package io.icerepl.copier.s3;

import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Random access by ranged GETs. Each request fetches at least the read-ahead size, aligned to end
 * at the end of the object when near it: Parquet and Puffin read a short tail and then the footer
 * just before it, which then come from one request.
 */
final class S3SeekableInput implements SeekableInput {
  private final S3Client client;
  private final S3Calls calls;
  private final String path;
  private final S3Location at;
  private final long length;
  private final int readAhead;
  private byte[] window = new byte[0];
  private long windowStart;

  S3SeekableInput(
      S3Client client, S3Calls calls, String path, S3Location at, long length, int readAhead) {
    this.client = client;
    this.calls = calls;
    this.path = path;
    this.at = at;
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
    byte[] bytes =
        calls.run(
            "read",
            path,
            at,
            () ->
                client
                    .getObjectAsBytes(
                        b ->
                            b.bucket(at.bucket())
                                .key(at.key())
                                .range("bytes=" + start + "-" + (end - 1)))
                    .asByteArrayUnsafe());
    if (bytes.length != end - start) {
      throw new IOException(
          "Cannot read "
              + path
              + " at "
              + start
              + ": got "
              + bytes.length
              + " bytes instead of "
              + (end - start)
              + ", the object changed while open");
    }
    return bytes;
  }
}
