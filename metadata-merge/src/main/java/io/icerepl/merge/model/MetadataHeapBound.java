package io.icerepl.merge.model;

/**
 * The largest metadata file a JVM's heap can hold while it is read and merged. The parser is
 * streamed and holds what it read compactly: 1.29–1.32× the file after GC for a 1000 MiB file
 * ({@code benchmark big-metadata}), counted 1.5×. A run holds two such files at once, the source's
 * head and the replica's (a 93 MiB table's next commit replicated under {@code -Xmx256m} with 240
 * MiB peak after GC; a 142 MiB one's ran out of memory there), so 3× the file is counted, with a
 * fixed reserve for the rest of the process. A file is refused once more than this many bytes of it
 * were read: a clear error naming the file and the heap, before the heap fills, instead of an
 * out-of-memory error that takes every table down with it, at every later commit.
 *
 * <p>The reserve is what the process holds besides the files, not a share of the heap: the service
 * holds 22 MiB after GC with its context started and two tables replicated, the command line
 * replicates a 1,000-file table under {@code -Xmx16m}, and a 1,000,000-file copy plan holds 26 MiB
 * after GC. A 256 MiB heap, a JVM's default in a 1 GiB container, so holds files up to 74 MiB.
 *
 * @param maxHeapBytes the JVM's maximum heap ({@code -Xmx})
 */
public record MetadataHeapBound(long maxHeapBytes) {
  /**
   * Heap taken per byte of metadata text: two files held at once, each with margin over the
   * measured 1.32×.
   */
  static final double HEAP_PER_BYTE = 3.0;

  /** Heap kept for everything else: the service's context, copy plans and buffers. */
  static final long RESERVE_BYTES = 32L * 1024 * 1024;

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
