package io.icerepl.copier.azure;

import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;

/**
 * Random access by ranged Get Blob requests, as {@code S3SeekableInput} does on S3: each request
 * fetches at least the read-ahead size, aligned to end at the end of the blob when near it, so a
 * Parquet tail and the footer before it come from one request. Every range is read with {@code
 * If-Match} on the ETag seen at open, so a blob replaced while open fails the read instead of
 * mixing two versions.
 */
final class AzureSeekableInput implements SeekableInput {
  private final BlobClient blob;
  private final String path;
  private final long length;
  private final String eTag;
  private final int readAhead;
  private byte[] window = new byte[0];
  private long windowStart;

  AzureSeekableInput(BlobClient blob, String path, long length, String eTag, int readAhead) {
    this.blob = blob;
    this.path = path;
    this.length = length;
    this.eTag = eTag;
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
    byte[] bytes;
    try {
      bytes =
          AzureErrors.run(
              "read",
              path,
              () ->
                  blob.downloadContentWithResponse(
                          null,
                          new BlobRequestConditions().setIfMatch(eTag),
                          new BlobRange(start, end - start),
                          false,
                          null,
                          Context.NONE)
                      .getValue()
                      .toBytes());
    } catch (IOException e) {
      if (e.getCause() instanceof BlobStorageException failed
          && AzureErrors.isConditionFailed(failed)) {
        throw new IOException(
            "Cannot read " + path + " at " + start + ": the object changed while open", e);
      }
      throw e;
    }
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
