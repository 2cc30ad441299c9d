package io.icerepl.merge.manifest;

/**
 * One entry of a manifest: the spec's {@code manifest_entry}, with the fields of its {@code
 * data_file} the replicator needs.
 *
 * @param status 0 EXISTING, 1 ADDED, 2 DELETED
 * @param content 0 data, 1 position deletes, 2 equality deletes (0 when the manifest has no content
 *     column, as in v1)
 * @param filePath the file's path as written in the manifest
 * @param fileFormat the file format as written in the manifest, e.g. "PARQUET", "AVRO", "ORC",
 *     "PUFFIN"
 * @param fileSizeInBytes the file's length as written in the manifest
 * @param referencedDataFile the data file a delete file applies to, or null
 * @param filePathBound for a position delete file, the data file its equal lower and upper bounds
 *     of the file_path column (field id 2147483546) name, else null
 */
public record ManifestEntry(
    int status,
    int content,
    String filePath,
    String fileFormat,
    long fileSizeInBytes,
    String referencedDataFile,
    String filePathBound) {

  /** An entry without a file_path bound. */
  public ManifestEntry(
      int status,
      int content,
      String filePath,
      String fileFormat,
      long fileSizeInBytes,
      String referencedDataFile) {
    this(status, content, filePath, fileFormat, fileSizeInBytes, referencedDataFile, null);
  }

  /** Whether the entry is ADDED or EXISTING, not DELETED. */
  public boolean live() {
    return status != 2;
  }
}
