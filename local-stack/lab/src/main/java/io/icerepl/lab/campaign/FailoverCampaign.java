package io.icerepl.lab.campaign;

import io.icerepl.lab.campaign.KilledRuns.Attempts;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopTables;

/**
 * The failover campaign: the disaster-recovery drill, repeated. Each drill replicates a source
 * table on local files with the service jar's {@code replicate}, lets the source commit 0–3 more
 * times that are never replicated, declares the source lost, promotes the replica ({@code promote
 * --mode now}) and fails back ({@code failback}), both as separate processes SIGKILLed at random
 * moments and rerun until they exit 0, with writes on the promoted table in between. Then the
 * Iceberg library reads both tables: no commit of either writer may be missing from the original,
 * and {@code verify} must pass from the promoted table to the original.
 */
public final class FailoverCampaign {
  private static final Pattern ORPHAN_TAG = Pattern.compile("orphan tag +(\\S+) -> (\\d+)");

  /** The first id the writer on the promoted table writes, far from the old source's ids. */
  private static final long PROMOTED_FIRST_ID = 1_000_000;

  /** Settings; see the {@code campaign failover} options. */
  public record Settings(int drills, long seed, Path jar, Path workDir, List<String> jvmOptions) {}

  /** One drill's figures; {@code failure} is null when it passed. */
  private record Drill(
      int rpoCommits,
      double rpoSeconds,
      double rtoSeconds,
      Attempts promote,
      Attempts failback,
      FailoverCheck.Result check,
      String failure) {}

  private final Settings settings;
  private final ServiceJar jar;
  private final PrintWriter out;
  private final Random random;
  private final KilledRuns runs;
  private Double promoteWindow;
  private Double failbackWindow;

  public FailoverCampaign(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.jar = new ServiceJar(settings.jar(), settings.jvmOptions());
    this.out = out;
    this.random = new Random(settings.seed());
    this.runs = new KilledRuns(jar, random);
  }

  /** Runs the drills, prints their figures and returns whether every drill passed. */
  public boolean run() throws IOException {
    long started = System.nanoTime();
    Path work =
        settings.workDir() != null
            ? settings.workDir()
            : Files.createTempDirectory("icerepl-failover-");
    out.printf(
        "failover campaign: seed %d, %d drills on local files, work folder %s%n",
        settings.seed(), settings.drills(), work);
    out.flush();
    List<Drill> drills = new ArrayList<>();
    for (int d = 1; d <= settings.drills(); d++) {
      Path dir = work.resolve("drill-" + d);
      Files.createDirectories(dir);
      Drill drill = drill(dir);
      drills.add(drill);
      printDrill(d, drill, dir);
    }
    printSummary(drills, (System.nanoTime() - started) / 1e9);
    boolean ok =
        drills.stream().allMatch(d -> d.failure() == null)
            && drills.stream().allMatch(d -> d.check() == null || d.check().lost() == 0);
    out.println(ok ? "failover campaign: OK" : "failover campaign: FAILED");
    out.flush();
    return ok;
  }

  private Drill drill(Path dir) {
    long drillSeed = random.nextLong();
    String original = location(dir.resolve("original"));
    String promoted = location(dir.resolve("promoted"));
    int replicatedCommits = 2 + random.nextInt(4);
    int rpoCommits = random.nextInt(4);
    int promotedCommits = 1 + random.nextInt(3);
    int promoteKills = promoteWindow == null ? 0 : random.nextInt(3);
    int failbackKills = failbackWindow == null ? 0 : random.nextInt(3);
    double rpoSeconds = Double.NaN;
    double rtoSeconds = Double.NaN;
    Attempts promote = null;
    Attempts failback = null;
    try (CampaignSource source = CampaignSource.hadoopTable(original, drillSeed)) {
      // the table's creation and its first commits reach the replica
      for (int i = 0; i < replicatedCommits; i++) {
        source.commit();
      }
      long lastReplicatedCommit = System.nanoTime();
      runToSuccess(
          dir,
          "replicate",
          List.of("replicate", "--source", original, "--target", promoted),
          0,
          null,
          promoted);
      // the source goes on committing; then it is lost before any of that is replicated
      for (int i = 0; i < rpoCommits; i++) {
        source.commitRows();
      }
      long failover = System.nanoTime();
      rpoSeconds = (failover - lastReplicatedCommit) / 1e9;

      promote =
          runToSuccess(
              dir,
              "promote",
              List.of("promote", "--target", promoted, "--mode", "now"),
              promoteKills,
              promoteWindow,
              promoted);
      rtoSeconds = (System.nanoTime() - failover) / 1e9;
      if (promoteWindow == null) {
        promoteWindow = promote.seconds();
      }

      Map<Long, List<String>> promotedRows;
      try (CampaignSource writer =
          CampaignSource.existingHadoopTable(promoted, PROMOTED_FIRST_ID, drillSeed + 1)) {
        for (int i = 0; i < promotedCommits; i++) {
          writer.commitRows();
        }
        Long head =
            new HadoopTables(new Configuration()).load(promoted).currentSnapshot().snapshotId();
        if (!head.equals(writer.currentSnapshotId())) {
          return failed(
              rpoCommits,
              rpoSeconds,
              rtoSeconds,
              promote,
              null,
              "the promoted table's version hint names snapshot "
                  + head
                  + ", not the one written "
                  + writer.currentSnapshotId());
        }
        promotedRows = writer.recordedRows();
      }

      failback =
          runToSuccess(
              dir,
              "failback",
              List.of("failback", "--primary", promoted, "--old-source", original),
              failbackKills,
              failbackWindow,
              original);
      if (failbackWindow == null) {
        failbackWindow = failback.seconds();
      }
      FailoverCheck.Result check =
          FailoverCheck.check(
              original,
              promoted,
              source.recordedRows(),
              promotedRows,
              orphanTags(failback.output()));
      Path verifyLog = dir.resolve("verify.log");
      int verified =
          jar.start(
                  verifyLog,
                  List.of(
                      "verify", "--source", promoted, "--target", original, "--settle-time", "0ms"))
              .waitFor();
      Verdict verdict =
          check.verdict().check("verify passes (see " + verifyLog + ")", verified == 0);
      return new Drill(
          rpoCommits,
          rpoSeconds,
          rtoSeconds,
          promote,
          failback,
          check,
          verdict.ok() ? null : String.join(", ", verdict.failed()));
    } catch (KilledRuns.CommandFailed e) {
      return failed(rpoCommits, rpoSeconds, rtoSeconds, promote, failback, e.getMessage());
    } catch (Exception e) {
      return failed(rpoCommits, rpoSeconds, rtoSeconds, promote, failback, e.toString());
    }
  }

  private static Drill failed(
      int rpoCommits,
      double rpoSeconds,
      double rtoSeconds,
      Attempts promote,
      Attempts failback,
      String reason) {
    return new Drill(rpoCommits, rpoSeconds, rtoSeconds, promote, failback, null, reason);
  }

  /**
   * Runs one service-jar command, SIGKILLing its first {@code kills} attempts, the first one just
   * after it first wrote to {@code table} and the others there or at a random moment within {@code
   * window} seconds of their start, then running it until it exits 0 (see {@link KilledRuns}). A
   * kill counts as after writing when {@code table}'s folder changed before it.
   */
  private Attempts runToSuccess(
      Path dir, String name, List<String> arguments, int kills, Double window, String table)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(arguments);
    command.addAll(List.of("--settle-time", "0ms"));
    return runs.runToSuccess(
        dir,
        name,
        command,
        kills,
        window == null ? 0 : window,
        true,
        List.of(Path.of(URI.create(table).getPath())),
        List.of(dir.resolve("original"), dir.resolve("promoted")));
  }

  /**
   * A table location as a {@code file:///…} URI, which HadoopTables spells {@code file:/…} in the
   * paths of the files it writes: fail-back must write the promoted table's deletes against the
   * original's files in the original's spelling, not in the one given on its command line.
   */
  static String location(Path folder) {
    return folder.toAbsolutePath().toUri().toString();
  }

  /** The orphan tags a fail-back printed, name to snapshot id. */
  static Map<String, Long> orphanTags(String output) {
    Map<String, Long> tags = new LinkedHashMap<>();
    Matcher m = ORPHAN_TAG.matcher(output);
    while (m.find()) {
      tags.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return tags;
  }

  private void printDrill(int number, Drill drill, Path dir) {
    FailoverCheck.Result check = drill.check();
    out.printf(
        "  drill %3d: %s, rpo %d commits / %.1f s, promote %s rto %.1f s, fail-back %s%s%n",
        number,
        drill.failure() == null ? "passed" : "FAILED",
        drill.rpoCommits(),
        drill.rpoSeconds(),
        kills(drill.promote()),
        drill.rtoSeconds(),
        kills(drill.failback()),
        check == null
            ? ""
            : String.format(
                ", %d source + %d promoted commits checked (%d orphans), %d lost",
                check.sourceCommits(), check.promotedCommits(), check.orphans(), check.lost()));
    if (drill.failure() != null) {
      out.println("    failed: " + drill.failure() + " (" + dir + ")");
      if (check != null) {
        check.problems().stream().limit(5).forEach(p -> out.println("    " + p));
      }
    }
    out.flush();
  }

  private static String kills(Attempts attempts) {
    return attempts == null
        ? "not finished"
        : attempts.kills() + " kills (" + attempts.killsAfterWriting() + " after writing)";
  }

  private void printSummary(List<Drill> drills, double wall) {
    List<Double> rto = new ArrayList<>();
    List<Double> rpoSeconds = new ArrayList<>();
    List<Double> rpoCommits = new ArrayList<>();
    int promoteKills = 0;
    int promoteAfterWriting = 0;
    int failbackKills = 0;
    int failbackAfterWriting = 0;
    int undone = 0;
    int lost = 0;
    int sourceCommits = 0;
    int promotedCommits = 0;
    int orphans = 0;
    for (Drill d : drills) {
      if (d.promote() != null) {
        rto.add(d.rtoSeconds());
        rpoSeconds.add(d.rpoSeconds());
        rpoCommits.add((double) d.rpoCommits());
        promoteKills += d.promote().kills();
        promoteAfterWriting += d.promote().killsAfterWriting();
        undone += d.promote().undone();
      }
      if (d.failback() != null) {
        failbackKills += d.failback().kills();
        failbackAfterWriting += d.failback().killsAfterWriting();
        undone += d.failback().undone();
      }
      if (d.check() != null) {
        lost += d.check().lost();
        sourceCommits += d.check().sourceCommits();
        promotedCommits += d.check().promotedCommits();
        orphans += d.check().orphans();
      }
    }
    long passed = drills.stream().filter(d -> d.failure() == null).count();
    out.println();
    out.println("| failover campaign (seed " + settings.seed() + ", local files) | |");
    out.println("|---|---|");
    row("drills run / passed", drills.size() + " / " + passed);
    row(
        "kills during promote / fail-back",
        promoteKills
            + " / "
            + failbackKills
            + " ("
            + promoteAfterWriting
            + " / "
            + failbackAfterWriting
            + " after the command had written to the table; "
            + undone
            + " runs finished before their kill and were undone)");
    row(
        "commits lost",
        lost
            + " (of "
            + sourceCommits
            + " source and "
            + promotedCommits
            + " promoted commits; "
            + orphans
            + " never replicated, kept under orphan tags)");
    row(
        "RTO median / max",
        rto.isEmpty()
            ? "no promote finished"
            : String.format("%.1f s / %.1f s", Spread.median(rto), Spread.max(rto)));
    row(
        "RPO median / max",
        rpoCommits.isEmpty()
            ? "no failover"
            : String.format(
                "%.1f / %.0f commits, %.1f s / %.1f s",
                Spread.median(rpoCommits),
                Spread.max(rpoCommits),
                Spread.median(rpoSeconds),
                Spread.max(rpoSeconds)));
    row(
        "kill window: promote / fail-back as measured on the first drill",
        promoteWindow == null || failbackWindow == null
            ? "not measured"
            : String.format("%.1f s / %.1f s", promoteWindow, failbackWindow));
    row("wall time", String.format("%.1f s", wall));
  }

  private void row(String name, String value) {
    out.println("| " + name + " | " + value + " |");
  }
}
