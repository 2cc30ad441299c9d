package io.icerepl.app.engine.retention;

/**
 * How expiry treats a replica.
 *
 * @param replicaOwnsFiles delete unreachable files even when the table says {@code
 *     gc.enabled=false} (its files may be shared with other tables on the source; a replica's
 *     copies are its own)
 * @param batchSize candidate files checked per pass over retained manifests (bounds memory)
 * @param maxMetadataBytes largest metadata file read
 */
public record RetentionSettings(boolean replicaOwnsFiles, int batchSize, long maxMetadataBytes) {
  public static RetentionSettings defaults() {
    return new RetentionSettings(
        false, 100_000, io.icerepl.merge.model.TableMetadataParser.DEFAULT_MAX_METADATA_BYTES);
  }
}
