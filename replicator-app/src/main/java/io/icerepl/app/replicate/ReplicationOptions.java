package io.icerepl.app.replicate;

import io.icerepl.merge.json.TableMetadataParser;
import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.List;

/**
 * How one replication runs.
 *
 * @param extraPrefixes path prefixes to map besides the table location and its write paths
 * @param coalesce apply only the source head, skipping intermediate versions
 * @param maxMetadataBytes the largest metadata file read (decompressed)
 * @param parallelism files put in place at once
 * @param settleTime how old a catalog-style source metadata file must be, without a version hint,
 *     before it is trusted as the head (a losing writer's file is often removed within it)
 */
public record ReplicationOptions(
    List<PathMapping.Prefix> extraPrefixes,
    boolean coalesce,
    long maxMetadataBytes,
    int parallelism,
    Duration settleTime) {

  /** Default settle time of catalog-style metadata files: 5 seconds. */
  public static final Duration DEFAULT_SETTLE_TIME = Duration.ofSeconds(5);

  public ReplicationOptions {
    extraPrefixes = List.copyOf(extraPrefixes);
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    if (maxMetadataBytes < 1) {
      throw new IllegalArgumentException("maxMetadataBytes must be positive, got " + maxMetadataBytes);
    }
    if (settleTime.isNegative()) {
      throw new IllegalArgumentException("settleTime must not be negative, got " + settleTime);
    }
  }

  /** Options with the default settle time. */
  public ReplicationOptions(
      List<PathMapping.Prefix> extraPrefixes, boolean coalesce, long maxMetadataBytes, int parallelism) {
    this(extraPrefixes, coalesce, maxMetadataBytes, parallelism, DEFAULT_SETTLE_TIME);
  }

  public static ReplicationOptions defaults() {
    return new ReplicationOptions(List.of(), false, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES, 8);
  }
}
