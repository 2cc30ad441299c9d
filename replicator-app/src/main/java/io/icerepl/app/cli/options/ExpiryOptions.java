package io.icerepl.app.cli.options;

import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.merge.retention.Durations;
import io.icerepl.merge.retention.ExpireOptions;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What an expiry keeps and removes, over the replica's own retention: its table-level policy and
 * its refs' own fields.
 */
public final class ExpiryOptions {
  @Option(
      names = "--retention-period",
      paramLabel = "<duration>",
      description =
          "Keep snapshots younger than this (e.g. 90d, 1d12h, 500ms); overrides the table-level"
              + " max snapshot age, never a ref's own.")
  String retentionPeriod;

  @Option(
      names = "--retain-last",
      paramLabel = "<n>",
      description =
          "Keep at least this many snapshots per branch; overrides the table-level minimum, never a ref's own.")
  Integer retainLast;

  @Option(
      names = "--max-ref-age",
      paramLabel = "<duration>",
      description = "Drop refs other than main whose snapshot is older than this (table level).")
  String maxRefAge;

  @Option(
      names = "--expire-before",
      paramLabel = "<timestamp>",
      description =
          "Safety fuse, ISO-8601 (e.g. 2026-11-01T00:00:00Z): no snapshot at or after it expires.")
  String expireBefore;

  @Option(
      names = "--snapshot-ids",
      showDefaultValue = CommandLine.Help.Visibility.NEVER,
      split = ",",
      paramLabel = "<id>",
      description =
          "Expire exactly these snapshots (never the current one or a ref's); not with"
              + " --retention-period or --retain-last.")
  List<Long> snapshotIds = new ArrayList<>();

  @Option(names = "--dry-run", description = "Plan and count; change nothing.")
  boolean dryRun;

  @Option(
      names = "--replica-owns-files",
      description = "Delete unreachable files even when the table says gc.enabled=false.")
  boolean replicaOwnsFiles;

  /**
   * The expiry these options ask for.
   *
   * @throws IllegalArgumentException when options that exclude each other are combined, or a value
   *     does not parse
   */
  public RetentionOptions retentionOptions() {
    if (!snapshotIds.isEmpty() && (retentionPeriod != null || retainLast != null)) {
      throw new IllegalArgumentException(
          "Cannot expire snapshots: --snapshot-ids cannot be combined with --retention-period or --retain-last");
    }
    if (retainLast != null && retainLast < 1) {
      throw new IllegalArgumentException(
          "Cannot expire snapshots: --retain-last must be at least 1, got " + retainLast);
    }
    return new RetentionOptions(
        new ExpireOptions(
            Optional.ofNullable(expireBefore).map(ExpiryOptions::parseInstant),
            Optional.ofNullable(retentionPeriod).map(Durations::parseMillis),
            Optional.ofNullable(retainLast),
            new HashSet<>(snapshotIds),
            dryRun),
        Optional.ofNullable(maxRefAge).map(Durations::parseMillis),
        replicaOwnsFiles);
  }

  private static long parseInstant(String text) {
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "Cannot parse --expire-before '"
              + text
              + "': expected an ISO-8601 instant such as 2026-11-01T00:00:00Z");
    }
  }
}
