package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.ExpiryOptions;
import io.icerepl.app.cli.options.MetadataLimitOption;
import io.icerepl.app.cli.options.StoreOptions;
import io.icerepl.app.cli.options.TargetOption;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

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

  @CommandLine.Mixin ExpiryOptions expiry;

  @Override
  public Integer call() {
    RetentionOptions options = expiry.retentionOptions();
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
