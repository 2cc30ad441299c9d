package io.icerepl.copier.s3;

import io.icerepl.copier.publish.ReplicaLayout;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link S3ObjectStore} writes, reads and locks.
 *
 * @param memoryBufferBytes a write is buffered in memory up to this size, in a temporary file above
 * @param multipartThresholdBytes writes larger than this are uploaded in parts
 * @param multipartCopyThresholdBytes server-side copies larger than this use UploadPartCopy (S3
 *     refuses a single CopyObject above 5 GiB)
 * @param partSizeBytes size of each part; S3 wants at least 5 MiB for all parts but the last
 * @param readAheadBytes a seekable read fetches at least this much, so the many small reads of a
 *     Parquet or Puffin footer cost one request
 * @param listPageSize keys per ListObjectsV2 page (S3 caps it at 1000)
 * @param lockPrefix key prefix of table lease objects, in the bucket of the table
 * @param lockOwner names this process in a lease, for whoever finds the table locked
 * @param lockTtl how long a lease holds unless renewed (every third of it, while its run goes on);
 *     a lease past it is taken over (its holder is presumed dead)
 * @param clock decides when a lease expires
 */
public record S3StoreSettings(
    long memoryBufferBytes,
    long multipartThresholdBytes,
    long multipartCopyThresholdBytes,
    long partSizeBytes,
    int readAheadBytes,
    int listPageSize,
    String lockPrefix,
    String lockOwner,
    Duration lockTtl,
    Clock clock) {

  /**
   * Where leases live unless configured otherwise: the command line, the service and the deployment
   * template use this one prefix, so that they exclude each other.
   */

  /**
   * How long a lease holds unless configured otherwise. Leases are renewed every third of it, so it
   * bounds only how long a killed run's table stays locked.
   */
  public static final String DEFAULT_LOCK_TTL = "PT2M";

  private static final long MIB = 1024 * 1024;
  static final long MIN_PART_BYTES = 5 * MIB;

  public S3StoreSettings {
    Objects.requireNonNull(lockPrefix, "lockPrefix");
    Objects.requireNonNull(lockOwner, "lockOwner");
    Objects.requireNonNull(lockTtl, "lockTtl");
    Objects.requireNonNull(clock, "clock");
    if (partSizeBytes < MIN_PART_BYTES) {
      throw new IllegalArgumentException(
          "Cannot use S3 part size " + partSizeBytes + ": S3 needs at least " + MIN_PART_BYTES);
    }
    if (multipartThresholdBytes < partSizeBytes) {
      throw new IllegalArgumentException(
          "Cannot use S3 multipart threshold "
              + multipartThresholdBytes
              + ": below the part size "
              + partSizeBytes);
    }
    if (readAheadBytes < 1 || listPageSize < 1 || listPageSize > 1000) {
      throw new IllegalArgumentException(
          "Cannot use S3 settings: read-ahead "
              + readAheadBytes
              + " must be positive and list page size "
              + listPageSize
              + " within 1..1000");
    }
    if (lockPrefix.isEmpty() || lockPrefix.startsWith("/") || lockPrefix.endsWith("/")) {
      throw new IllegalArgumentException(
          "Cannot use S3 lock prefix '" + lockPrefix + "': it needs a name without edge slashes");
    }
    if (lockTtl.isNegative() || lockTtl.isZero()) {
      throw new IllegalArgumentException("Cannot use S3 lock TTL " + lockTtl + ": not positive");
    }
  }

  /** Defaults for a process named {@code lockOwner}, on the system clock. */
  public static S3StoreSettings defaults(String lockOwner) {
    return new S3StoreSettings(
        8 * MIB,
        64 * MIB,
        1024 * MIB,
        16 * MIB,
        (int) MIB,
        1000,
        ReplicaLayout.DEFAULT_LOCK_PREFIX,
        lockOwner,
        Duration.parse(DEFAULT_LOCK_TTL),
        Clock.systemUTC());
  }

  public S3StoreSettings withMultipart(
      long thresholdBytes, long copyThresholdBytes, long partBytes) {
    return new S3StoreSettings(
        memoryBufferBytes,
        thresholdBytes,
        copyThresholdBytes,
        partBytes,
        readAheadBytes,
        listPageSize,
        lockPrefix,
        lockOwner,
        lockTtl,
        clock);
  }

  public S3StoreSettings withMemoryBufferBytes(long bytes) {
    return new S3StoreSettings(
        bytes,
        multipartThresholdBytes,
        multipartCopyThresholdBytes,
        partSizeBytes,
        readAheadBytes,
        listPageSize,
        lockPrefix,
        lockOwner,
        lockTtl,
        clock);
  }

  public S3StoreSettings withListPageSize(int keys) {
    return new S3StoreSettings(
        memoryBufferBytes,
        multipartThresholdBytes,
        multipartCopyThresholdBytes,
        partSizeBytes,
        readAheadBytes,
        keys,
        lockPrefix,
        lockOwner,
        lockTtl,
        clock);
  }

  /**
   * Leases under {@code prefix} as configured: a template's {@code .replicator-locks/} names the
   * same prefix as {@code .replicator-locks}.
   */
  public S3StoreSettings withLockPrefix(String prefix) {
    return withLock(prefix.replaceAll("^/+|/+$", ""), lockOwner, lockTtl, clock);
  }

  public S3StoreSettings withLock(String prefix, String owner, Duration ttl, Clock lockClock) {
    return new S3StoreSettings(
        memoryBufferBytes,
        multipartThresholdBytes,
        multipartCopyThresholdBytes,
        partSizeBytes,
        readAheadBytes,
        listPageSize,
        prefix,
        owner,
        ttl,
        lockClock);
  }
}
