package io.icerepl.merge.model;

/**
 * The largest metadata file a JVM's heap can hold while it is read and merged. Parsed metadata
 * takes about 1.3× its text in heap (1.32× peak after GC for a 1000 MiB file, {@code benchmark
 * big-metadata}); counting 1.5× and a fixed reserve for the rest of the process, a file is refused
 * once more than this many bytes of it were read: a clear error naming the file and the heap,
 * before the heap fills, instead of an out-of-memory error minutes later that takes every table
 * down with it.
 *
 * @param maxHeapBytes the JVM's maximum heap ({@code -Xmx})
 */
public record MetadataHeapBound(long maxHeapBytes) {
  /** Heap taken per byte of metadata text, with margin over the measured 1.32×. */
  static final double HEAP_PER_BYTE = 1.5;

  /** Heap kept for everything else: the service's context, copy buffers, other tables' runs. */
  static final long RESERVE_BYTES = 256L * 1024 * 1024;

  /** The bound of the running JVM. */
  public static MetadataHeapBound ofThisJvm() {
    return new MetadataHeapBound(Runtime.getRuntime().maxMemory());
  }

  /** The largest metadata file, decompressed, this heap holds; 0 for a heap below the reserve. */
  public long largestFileBytes() {
    return Math.max(0, (long) ((maxHeapBytes - RESERVE_BYTES) / HEAP_PER_BYTE));
  }

  /** The smallest {@code -Xmx}, in MiB, that holds a file of this many bytes. */
  public static long heapMibFor(long fileBytes) {
    return (long) Math.ceil((fileBytes * HEAP_PER_BYTE + RESERVE_BYTES) / (1024.0 * 1024));
  }
}
