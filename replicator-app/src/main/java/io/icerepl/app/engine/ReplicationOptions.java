package io.icerepl.app.engine;

import io.icerepl.merge.model.TableMetadataParser;
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
 * @param allowedSourcePrefixes the prefixes a table's location and write paths must lie under
 *     (besides {@code extraPrefixes}); empty: wherever its metadata says
 * @param settleTime how old a catalog-style source metadata file must be, without a version hint,
 *     before it is trusted as the head (a losing writer's file is often removed within it)
 */
public record ReplicationOptions(
    List<PathMapping.Prefix> extraPrefixes,
    boolean coalesce,
    long maxMetadataBytes,
    int parallelism,
    List<String> allowedSourcePrefixes,
    Duration settleTime) {

  /** Default settle time of catalog-style metadata files: 5 seconds. */
  public static final Duration DEFAULT_SETTLE_TIME = Duration.ofSeconds(5);

  public ReplicationOptions {
    extraPrefixes = List.copyOf(extraPrefixes);
    allowedSourcePrefixes = List.copyOf(allowedSourcePrefixes);
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    if (maxMetadataBytes < 1) {
      throw new IllegalArgumentException(
          "maxMetadataBytes must be positive, got " + maxMetadataBytes);
    }
    if (settleTime.isNegative()) {
      throw new IllegalArgumentException("settleTime must not be negative, got " + settleTime);
    }
  }

  /** Options with no confinement and the default settle time. */
  public ReplicationOptions(
      List<PathMapping.Prefix> extraPrefixes,
      boolean coalesce,
      long maxMetadataBytes,
      int parallelism) {
    this(extraPrefixes, coalesce, maxMetadataBytes, parallelism, List.of(), DEFAULT_SETTLE_TIME);
  }

  /** Options with no confinement and the given settle time. */
  public ReplicationOptions(
      List<PathMapping.Prefix> extraPrefixes,
      boolean coalesce,
      long maxMetadataBytes,
      int parallelism,
      Duration settleTime) {
    this(extraPrefixes, coalesce, maxMetadataBytes, parallelism, List.of(), settleTime);
  }

  /**
   * The same options for one table: these prefixes mapped, and paths only under the allowed ones.
   */
  public ReplicationOptions forTable(List<PathMapping.Prefix> prefixes, List<String> allowed) {
    return new ReplicationOptions(
        prefixes, coalesce, maxMetadataBytes, parallelism, allowed, settleTime);
  }

  public static ReplicationOptions defaults() {
    return new ReplicationOptions(
        List.of(), false, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES, 8);
  }
}
