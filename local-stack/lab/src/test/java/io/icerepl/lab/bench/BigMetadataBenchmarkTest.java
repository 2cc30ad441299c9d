package io.icerepl.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.lab.cli.LabCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BigMetadataBenchmarkTest {
  /** Within the heap bound's 160 MiB under 512 MiB (3× the file plus 32 MiB), with margin. */
  private static final int FILE_MIB = 150;

  private static final int HEAP_MIB = 512;

  /**
   * The heap itself, not its labels: in a JVM whose heap a Jackson tree of the file does not fit (a
   * tree takes about 4× the text, 252 MiB for 62.5 MiB, so the baseline runs out of memory in 512
   * MiB; a replicator that held such a tree fails here the same way), the backfill completes, and
   * what it held after collections is at least the file (each snapshot is kept as its bytes, so a
   * measurement that saw nothing fails) and within 1.5 times the file plus the JVM's own 64 MiB.
   */
  @Test
  void underAHeapTheFilesTreeCannotFitTheBackfillCompletesWithinItsBound(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("big-metadata.log");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + HEAP_MIB + "m",
                "-cp",
                System.getProperty("java.class.path"),
                LabCli.class.getName(),
                "benchmark",
                "big-metadata",
                "--size",
                String.valueOf(FILE_MIB),
                "--dir",
                dir.resolve("work").toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("benchmark finished").isTrue();
    String printed = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(printed).isZero();
    assertThat(printed).as(printed).contains("(out of memory)");

    Matcher ratio =
        Pattern.compile("replicator peak after GC / file size: ([0-9.]+);").matcher(printed);
    assertThat(ratio.find()).as(printed).isTrue();
    assertThat(Double.parseDouble(ratio.group(1)))
        .as(printed)
        .isBetween(1.0, 1.5 + 64.0 / FILE_MIB);
  }

  @Test
  void aSmallRunReplicatesTheWholeHistoryAndPrintsHeapAgainstJackson(@TempDir Path dir)
      throws Exception {
    StringWriter printed = new StringWriter();
    BigMetadataBenchmark.Result result =
        new BigMetadataBenchmark(new PrintWriter(printed)).run(dir, 2L * 1024 * 1024);

    assertThat(result.fileBytes()).isBetween(1L * 1024 * 1024, 3L * 1024 * 1024);
    assertThat(result.snapshots()).isGreaterThan(1000);
    assertThat(result.summary().snapshotsAdded()).isEqualTo(result.snapshots());
    assertThat(printed.toString())
        .contains("baseline: Jackson readTree of the file", "replicator: backfill the table");

    HadoopTables tables = new HadoopTables(new Configuration());
    Table source = tables.load(result.sourceLocation());
    Table replica = tables.load(result.replicaLocation());
    List<Snapshot> sourceSnapshots = new ArrayList<>();
    source.snapshots().forEach(sourceSnapshots::add);
    List<Snapshot> replicaSnapshots = new ArrayList<>();
    replica.snapshots().forEach(replicaSnapshots::add);
    assertThat(replicaSnapshots).hasSize(sourceSnapshots.size());
    for (int i = 0; i < sourceSnapshots.size(); i++) {
      Snapshot s = sourceSnapshots.get(i);
      Snapshot r = replicaSnapshots.get(i);
      assertThat(r.snapshotId()).isEqualTo(s.snapshotId());
      assertThat(r.parentId()).isEqualTo(s.parentId());
      assertThat(r.timestampMillis()).isEqualTo(s.timestampMillis());
      assertThat(r.sequenceNumber()).isEqualTo(s.sequenceNumber());
      assertThat(r.summary()).isEqualTo(s.summary());
      assertThat(r.manifestListLocation()).startsWith(result.replicaLocation());
    }
    assertThat(replica.history().stream().map(HistoryEntry::snapshotId).toList())
        .isEqualTo(source.history().stream().map(HistoryEntry::snapshotId).toList());
    // the first synthetic snapshot, one in the middle and the real one read the same rows
    for (Snapshot s :
        List.of(
            sourceSnapshots.get(0),
            sourceSnapshots.get(sourceSnapshots.size() / 2),
            source.currentSnapshot())) {
      assertThat(rows(replica, s.snapshotId())).isEqualTo(rows(source, s.snapshotId()));
      assertThat(rows(replica, s.snapshotId())).hasSize(100);
      long asOf = s.timestampMillis();
      assertThat(rowsAsOf(replica, asOf)).isEqualTo(rowsAsOf(source, asOf));
    }
  }

  private static List<String> rows(Table table, long snapshotId) throws Exception {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.toString()));
    }
    rows.sort(null);
    return rows;
  }

  private static List<String> rowsAsOf(Table table, long timestampMs) throws Exception {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).asOfTime(timestampMs).build()) {
      records.forEach(r -> rows.add(r.toString()));
    }
    rows.sort(null);
    return rows;
  }
}
