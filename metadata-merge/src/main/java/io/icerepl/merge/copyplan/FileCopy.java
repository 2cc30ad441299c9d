package io.icerepl.merge.copyplan;

import java.util.Objects;

/**
 * One file to put in place at the replica.
 *
 * @param kind what the file is, which decides how it is copied and its publish phase
 * @param source the source path
 * @param target the replica path
 * @param expectedSize the source file's length as its parent (manifest, manifest list, table
 *     metadata) records it, or -1 if unknown; a rewritten file's replica length differs
 * @param fileFormat the file format as the manifest names it (for delete files), or null
 */
public record FileCopy(
    FileKind kind, String source, String target, long expectedSize, String fileFormat) {
  public FileCopy {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
  }

  public static FileCopy of(FileKind kind, String source, String target, long expectedSize) {
    return new FileCopy(kind, source, target, expectedSize, null);
  }
}
