package io.icerepl.merge.retention;

/**
 * Table-level snapshot retention, as the spec's {@code history.expire.*} properties and a ref's own
 * fields spell it.
 *
 * @param minSnapshotsToKeep snapshots each branch keeps however old (at least 1)
 * @param maxSnapshotAgeMs a branch keeps ancestors younger than this
 * @param maxRefAgeMs refs other than {@code main} whose snapshot is older than this are dropped
 *     ({@link Long#MAX_VALUE}: never)
 */
public record RetentionPolicy(int minSnapshotsToKeep, long maxSnapshotAgeMs, long maxRefAgeMs) {
  public static final String MIN_SNAPSHOTS_TO_KEEP = "history.expire.min-snapshots-to-keep";
  public static final String MAX_SNAPSHOT_AGE_MS = "history.expire.max-snapshot-age-ms";
  public static final String MAX_REF_AGE_MS = "history.expire.max-ref-age-ms";

  /** Iceberg's defaults: 1 snapshot, 5 days, refs kept forever. */
  public static final RetentionPolicy ICEBERG_DEFAULTS =
      new RetentionPolicy(1, 5L * 24 * 60 * 60 * 1000, Long.MAX_VALUE);

  public RetentionPolicy {
    if (minSnapshotsToKeep < 1) {
      throw new IllegalArgumentException(
          "min-snapshots-to-keep must be at least 1, got " + minSnapshotsToKeep);
    }
    if (maxSnapshotAgeMs < 0 || maxRefAgeMs < 0) {
      throw new IllegalArgumentException("ages must not be negative");
    }
  }
}
