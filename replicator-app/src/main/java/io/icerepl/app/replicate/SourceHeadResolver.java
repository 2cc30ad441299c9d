package io.icerepl.app.replicate;

/**
 * Names a source table's current metadata file. The file-system rules (version hint, else the
 * single newest version) are the default; a catalog's pointer (Iceberg REST, Glue) is the most
 * trusted answer and can be plugged in here.
 */
@FunctionalInterface
public interface SourceHeadResolver {

  /**
   * @return the current metadata file of the table at {@code location}
   * @throws io.icerepl.merge.error.ReplicationException when there is none, or it is ambiguous
   */
  String currentMetadataFile(String location);
}
