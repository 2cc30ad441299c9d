package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.MetadataLimitOption;
import io.icerepl.app.cli.options.StoreOptions;
import io.icerepl.app.cli.options.TargetOption;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.merge.retention.Durations;
import io.icerepl.merge.retention.ExpireOptions;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code expire}: the replica's own snapshot retention, with ClickHouse-grade controls. */
@Command(
    name = "expire",
    header = "Expires a replica's snapshots by its own retention.",
    description = {
      "The table-level policy is the replica's history.expire.* properties (else 1 snapshot, 5 days, refs kept forever); refs' own fields override it; the options below override both. Files no retained snapshot reaches are deleted, unless the table says gc.enabled=false. Prints the metrics as 'name value' lines, named as Iceberg's expire_snapshots names them."
    },
    footer = {
      "  replicator expire --target s3://dr/db/t --retention-period 90d --retain-last 5",
      "  replicator expire --target /backup/db/t --expire-before 2026-11-01T00:00:00Z"
    },
    exitCodeList = {
      "0:expired (or nothing to expire)",
      "1:the expiry failed; an interrupted one is finished by the next run",
      "2:a bad argument"
    })
public final class ExpireCommand extends TableCommand {
  @CommandLine.Mixin TargetOption target;

  @CommandLine.Mixin MetadataLimitOption metadataLimit;

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

  @Override
  public Integer call() {
    if (!snapshotIds.isEmpty() && (retentionPeriod != null || retainLast != null)) {
      throw new IllegalArgumentException(
          "Cannot expire snapshots: --snapshot-ids cannot be combined with --retention-period or --retain-last");
    }
    if (retainLast != null && retainLast < 1) {
      throw new IllegalArgumentException(
          "Cannot expire snapshots: --retain-last must be at least 1, got " + retainLast);
    }
    RetentionOptions options =
        new RetentionOptions(
            new ExpireOptions(
                Optional.ofNullable(expireBefore).map(ExpireCommand::parseInstant),
                Optional.ofNullable(retentionPeriod).map(Durations::parseMillis),
                Optional.ofNullable(retainLast),
                new HashSet<>(snapshotIds),
                dryRun),
            Optional.ofNullable(maxRefAge).map(Durations::parseMillis),
            replicaOwnsFiles);
    ProgressBar.Drawing progress = progressBar();
    try (StoreOptions opened = stores) {
      RetentionResult result;
      try {
        result =
            RetentionRunner.expire(
                stores.target(target.target()),
                Clock.systemUTC(),
                target.target(),
                options,
                metadataLimit.maxMetadataBytes(),
                progress.deletions());
      } finally {
        progress.clear();
      }
      print(report(target.target(), result));
      return 0;
    }
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

  /**
   * The metrics, printed as Iceberg's {@code expire_snapshots} names them, then what was removed;
   * the JSON keys are camelCase like every other command's.
   */
  static Report report(String table, RetentionResult result) {
    Report report = Report.spaced().json("table", table);
    result.metricList().forEach(m -> report.put(m.key(), m.icebergName(), m.value()));
    report.list("expiredSnapshots").list("droppedRefs").list("warnings");
    result
        .expiredSnapshotIds()
        .forEach(id -> report.item("expiredSnapshots", "expired_snapshot", id));
    result
        .droppedRefs()
        .forEach(
            r ->
                report.item(
                    "droppedRefs",
                    "dropped_ref",
                    Map.of("name", r.name(), "reason", r.reason()),
                    r.name() + " (" + r.reason() + ")"));
    result.warnings().forEach(w -> report.item("warnings", "warning", w));
    report.json("filesKept", result.filesKept());
    if (result.filesKept()) {
      report.text(
          "note gc.enabled=false: no file deleted (use --replica-owns-files if the replica's files are its own)");
    }
    return report;
  }
}
