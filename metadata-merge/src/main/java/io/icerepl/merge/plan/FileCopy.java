package io.icerepl.merge.plan;

import java.util.Objects;

/**
 * One file to put in place at the replica.
 *
 * @param kind what the file is, which decides how it is copied and its publish phase
 * @param source the source path
 * @param target the replica path
 * @param expectedSize the length recorded in metadata for a byte-for-byte copy, or -1 if unknown
 * @param fileFormat the file format as the manifest names it (for delete files), or null
 */
public record FileCopy(FileKind kind, String source, String target, long expectedSize, String fileFormat) {
  public FileCopy {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
  }

  public static FileCopy of(FileKind kind, String source, String target, long expectedSize) {
    return new FileCopy(kind, source, target, expectedSize, null);
  }
}
