package io.icerepl.merge.retention;

import java.util.Map;
import java.util.Objects;

/** Reads a table's own retention policy from its {@code history.expire.*} properties. */
public final class RetentionPolicies {
  private RetentionPolicies() {}

  /**
   * The policy the table's properties set, each missing property falling back to {@link
   * RetentionPolicy#ICEBERG_DEFAULTS}.
   *
   * @throws IllegalArgumentException naming the property whose value is malformed
   */
  public static RetentionPolicy fromProperties(Map<String, String> properties) {
    Objects.requireNonNull(properties, "properties");
    RetentionPolicy defaults = RetentionPolicy.ICEBERG_DEFAULTS;
    long minSnapshots =
        read(
            properties,
            RetentionPolicy.MIN_SNAPSHOTS_TO_KEEP,
            defaults.minSnapshotsToKeep(),
            1,
            Integer.MAX_VALUE);
    long maxSnapshotAge =
        read(
            properties,
            RetentionPolicy.MAX_SNAPSHOT_AGE_MS,
            defaults.maxSnapshotAgeMs(),
            0,
            Long.MAX_VALUE);
    long maxRefAge =
        read(properties, RetentionPolicy.MAX_REF_AGE_MS, defaults.maxRefAgeMs(), 0, Long.MAX_VALUE);
    return new RetentionPolicy((int) minSnapshots, maxSnapshotAge, maxRefAge);
  }

  // Parsed as strictly as Iceberg's PropertyUtil does (no trimming), so the replica never reads a
  // value differently from the engines that read the same table.
  private static long read(
      Map<String, String> properties, String name, long fallback, long min, long max) {
    String value = properties.get(name);
    if (value == null) {
      return fallback;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw malformed(name, value, "not a whole number");
    }
    if (parsed < min) {
      throw malformed(name, value, "must be at least " + min);
    }
    if (parsed > max) {
      throw malformed(name, value, "must be at most " + max);
    }
    return parsed;
  }

  private static IllegalArgumentException malformed(String name, String value, String why) {
    return new IllegalArgumentException(
        "Cannot read table property " + name + "='" + value + "': " + why);
  }
}
