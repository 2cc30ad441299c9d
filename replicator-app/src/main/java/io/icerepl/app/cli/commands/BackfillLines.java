package io.icerepl.app.cli.commands;

import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.backfill.BackfillListener;
import io.icerepl.app.engine.backfill.TableOutcome;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.logging.Redaction;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.copy.HumanUnits;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A backfill's progress as one line per finished table, and its summary as a table. */
final class BackfillLines implements BackfillListener {
  private final PrintWriter out;
  private int total;
  private int done;
  private long files;
  private long bytes;
  private final Map<TableKey, JobProgress> lastJobs = new HashMap<>();

  BackfillLines(PrintWriter out) {
    this.out = out;
  }

  @Override
  public synchronized void discovered(int tables) {
    total = tables;
    out.println("tables to backfill " + tables);
    out.flush();
  }

  @Override
  public void copying(TableKey key, CopyProgress progress) {}

  /** A line each time a table's S3 Batch Operations job changes. */
  @Override
  public synchronized void batchJob(TableKey key, JobProgress job) {
    if (job.equals(lastJobs.put(key, job))) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "batch job %s: %s %s, %d of %d tasks succeeded, %d failed%n",
        key.table() + " -> " + key.target(),
        job.jobId(),
        job.status(),
        job.succeeded(),
        job.total(),
        job.failed());
    out.flush();
  }

  @Override
  public synchronized void finished(TableOutcome outcome) {
    if (!outcome.target().isEmpty()) {
      done++;
    }
    outcome
        .summary()
        .ifPresent(
            s -> {
              files += s.filesCopied();
              bytes += s.bytesCopied();
            });
    // a failed table's error may quote a catalog's URL: through the one redaction, as the result
    out.println(
        Redaction.apply(
            String.format(
                Locale.ROOT,
                "[%d/%d tables, %d files, %s] %s %s",
                done,
                total,
                files,
                HumanUnits.bytes(bytes),
                name(outcome),
                result(outcome))));
    out.flush();
  }

  /** One row per table and target, then the totals; in JSON one object per row. */
  static Report summary(List<TableOutcome> outcomes) {
    Report report = Report.aligned().list("tables");
    int width = outcomes.stream().mapToInt(o -> name(o).length()).max().orElse(5);
    String row = "%-" + Math.max(width, 5) + "s  %8s  %8s  %10s  %10s  %s";
    report.text(
        String.format(Locale.ROOT, row, "table", "versions", "files", "bytes", "time", "result"));
    for (TableOutcome o : outcomes) {
      ReplicationSummary s = o.summary().orElse(ReplicationSummary.none());
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("rule", o.rule());
      json.put("table", o.table());
      json.put("target", o.target());
      json.put("versionsApplied", s.versionsApplied());
      json.put("filesCopied", s.filesCopied());
      json.put("bytesCopied", s.bytesCopied());
      json.put("timeMs", o.time().toMillis());
      json.put("result", o.failed() ? "failed" : o.upToDate() ? "up to date" : "replicated");
      json.put("error", o.error().orElse(null));
      report.row(
          "tables",
          json,
          String.format(
              Locale.ROOT,
              row,
              name(o),
              s.versionsApplied(),
              s.filesCopied(),
              HumanUnits.bytes(s.bytesCopied()),
              HumanUnits.time(o.time()),
              result(o)));
    }
    long failed = outcomes.stream().filter(TableOutcome::failed).count();
    long upToDate = outcomes.stream().filter(TableOutcome::upToDate).count();
    long replicated = outcomes.size() - failed - upToDate;
    return report
        .json("replicated", replicated)
        .json("upToDate", upToDate)
        .json("failed", failed)
        .text(
            String.format(
                Locale.ROOT,
                "%d replicated, %d already up to date, %d failed",
                replicated,
                upToDate,
                failed));
  }

  private static String name(TableOutcome o) {
    return o.target().isEmpty()
        ? o.rule() + ":" + o.table()
        : o.rule() + ":" + o.table() + " -> " + o.target();
  }

  private static String result(TableOutcome o) {
    if (o.failed()) {
      return "failed: " + o.error().get();
    }
    return o.upToDate() ? "up to date" : "replicated";
  }
}
