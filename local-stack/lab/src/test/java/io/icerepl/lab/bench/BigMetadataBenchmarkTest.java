package io.icerepl.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
