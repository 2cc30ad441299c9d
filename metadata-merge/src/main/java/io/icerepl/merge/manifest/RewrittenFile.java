package io.icerepl.merge.manifest;

import java.util.List;

/**
 * What a manifest must record about a delete file that was rewritten for the replica: its new
 * length and, for Parquet and ORC, the new row-group or stripe offsets. Readers on object stores
 * trust these.
 *
 * @param fileSizeInBytes the replica file's length
 * @param splitOffsets the replica file's split offsets, or null when the format has none
 */
public record RewrittenFile(long fileSizeInBytes, List<Long> splitOffsets) {
  public RewrittenFile {
    splitOffsets = splitOffsets == null ? null : List.copyOf(splitOffsets);
  }
}
