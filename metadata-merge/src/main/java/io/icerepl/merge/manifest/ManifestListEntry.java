package io.icerepl.merge.manifest;

/**
 * One row of a manifest list: the spec's {@code manifest_file} struct.
 *
 * @param manifestPath the manifest's path as written in the list
 * @param manifestLength the manifest's length in bytes as written in the list
 * @param content 0 = data, 1 = deletes (0 when the list has no content column, as in v1)
 * @param addedSnapshotId the id of the snapshot that added the manifest (-1 when the list has none)
 */
public record ManifestListEntry(
    String manifestPath, long manifestLength, int content, long addedSnapshotId) {}
