package io.icerepl.merge.model;

import io.icerepl.merge.error.BadInputException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Fails once more than the configured number of (decompressed) bytes was read, or more than this
 * process's heap holds as parsed metadata: counted as the bytes are read, so a gzip file that
 * inflates without end fails its table before the JVM runs out of memory.
 */
final class LimitedInputStream extends FilterInputStream {
  private final long maxBytes;
  private final MetadataHeapBound heap;
  private final long heapBytes;
  private final String fileName;
  private long count;

  LimitedInputStream(InputStream in, long maxBytes, MetadataHeapBound heap, String fileName) {
    super(in);
    this.maxBytes = maxBytes;
    this.heap = heap;
    this.heapBytes = heap.largestFileBytes();
    this.fileName = fileName;
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b >= 0) {
      count(1);
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = super.read(b, off, len);
    if (n > 0) {
      count(n);
    }
    return n;
  }

  private void count(long n) {
    count += n;
    if (count > heapBytes && heapBytes < maxBytes) {
      long mib = 1024 * 1024;
      throw new BadInputException(
          "Cannot read table metadata "
              + fileName
              + ": larger than this process's heap holds (over "
              + heapBytes / mib
              + " MiB read; a maximum heap of "
              + heap.maxHeapBytes() / mib
              + " MiB holds metadata files up to "
              + heapBytes / mib
              + " MiB, at "
              + MetadataHeapBound.HEAP_PER_BYTE
              + "× their size plus "
              + MetadataHeapBound.RESERVE_BYTES / mib
              + " MiB); give the JVM -Xmx"
              + MetadataHeapBound.heapMibFor(maxBytes)
              + "m to read files up to the configured limit of "
              + maxBytes / mib
              + " MiB");
    }
    if (count > maxBytes) {
      throw new BadInputException(
          "Cannot read table metadata "
              + fileName
              + ": larger than the configured limit of "
              + maxBytes
              + " bytes");
    }
  }
}
