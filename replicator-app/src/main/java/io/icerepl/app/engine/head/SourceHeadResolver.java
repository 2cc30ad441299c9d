package io.icerepl.app.engine.head;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Names a source table's current metadata file. The file-system rules (version hint, else the
 * single newest version that has settled) are the default; a catalog's pointer (Iceberg REST, Glue)
 * is the most trusted answer and can be plugged in here.
 */
@FunctionalInterface
public interface SourceHeadResolver {

  /**
   * @param file the current metadata file's path
   * @param settlesAtMs when a newer file passed over as too young is old enough to trust, if any
   * @param settlingSinceMs when the oldest file passed over was written, if any
   * @param listing the metadata folder's listing the head was resolved from; empty when the head
   *     was not found by listing (a catalog's pointer, a file named by the caller)
   */
  record Head(
      String file,
      OptionalLong settlesAtMs,
      OptionalLong settlingSinceMs,
      Optional<MetadataListing> listing) {
    public Head(String file, OptionalLong settlesAtMs, OptionalLong settlingSinceMs) {
      this(file, settlesAtMs, settlingSinceMs, Optional.empty());
    }

    /** A file named by the caller rather than resolved: nothing is settling. */
    public static Head given(String file) {
      return new Head(file, OptionalLong.empty(), OptionalLong.empty());
    }
  }

  /**
   * @return the current metadata file of the table at {@code location}
   * @throws io.icerepl.merge.error.ReplicationException when there is none, or it is ambiguous
   */
  Head head(String location);
}
