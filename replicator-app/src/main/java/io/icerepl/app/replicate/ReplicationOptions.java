package io.icerepl.app.replicate;

import io.icerepl.merge.json.TableMetadataParser;
import io.icerepl.merge.path.PathMapping;
import java.util.List;

/**
 * How one replication runs.
 *
 * @param extraPrefixes path prefixes to map besides the table location and its write paths
 * @param coalesce apply only the source head, skipping intermediate versions
 * @param maxMetadataBytes the largest metadata file read (decompressed)
 * @param parallelism files put in place at once
 */
public record ReplicationOptions(
    List<PathMapping.Prefix> extraPrefixes, boolean coalesce, long maxMetadataBytes, int parallelism) {

  public ReplicationOptions {
    extraPrefixes = List.copyOf(extraPrefixes);
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    if (maxMetadataBytes < 1) {
      throw new IllegalArgumentException("maxMetadataBytes must be positive, got " + maxMetadataBytes);
    }
  }

  public static ReplicationOptions defaults() {
    return new ReplicationOptions(List.of(), false, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES, 8);
  }
}
