package io.icerepl.merge.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables written by the Iceberg library, judged as a replicator whose clock reads {@code readBy}
 * once it read them: a replicator behind the writer by some time sees the writer's stamps that far
 * ahead, as it would see those of a writer running that far ahead.
 */
class WriterClockTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Duration SECOND = Duration.ofSeconds(1);

  @Test
  void aSnapshotStampedMoreThanTheAllowanceAfterTheReadIsReportedWithHowFarAhead(@TempDir Path dir)
      throws Exception {
    Table table = table(dir);
    append(table, 1);
    append(table, 2);
    Snapshot newest = table.currentSnapshot();
    TableMetadata metadata = read(table);

    WriterClock.Ahead ahead =
        WriterClock.ahead(metadata, newest.timestampMillis() - 1500, SECOND).orElseThrow();

    assertThat(ahead.snapshotId()).hasValue(newest.snapshotId());
    assertThat(ahead.stampedMs()).isEqualTo(newest.timestampMillis());
    assertThat(ahead.readByMs()).isEqualTo(newest.timestampMillis() - 1500);
    assertThat(ahead.by()).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void aStampExactlyTheAllowanceAheadIsFineAndOneMillisecondMoreIsNot(@TempDir Path dir)
      throws Exception {
    Table table = table(dir);
    append(table, 1);
    long stamp = table.currentSnapshot().timestampMillis();
    TableMetadata metadata = read(table);
    long furthest = Math.max(stamp, metadata.lastUpdatedMs());

    assertThat(WriterClock.ahead(metadata, furthest - 1000, SECOND)).isEmpty();
    assertThat(WriterClock.ahead(metadata, furthest, SECOND)).isEmpty();
    assertThat(WriterClock.ahead(metadata, furthest + 60_000, SECOND)).isEmpty();
    assertThat(WriterClock.ahead(metadata, furthest - 1001, SECOND).orElseThrow().by())
        .isEqualTo(Duration.ofMillis(1001));
    WriterClock.Ahead snapshot = WriterClock.ahead(metadata, stamp - 1001, SECOND).orElseThrow();
    assertThat(snapshot.snapshotId()).hasValue(table.currentSnapshot().snapshotId());
    assertThat(snapshot.by()).isEqualTo(Duration.ofMillis(1001));
  }

  @Test
  void ofSeveralStampsAheadTheOneFurthestAheadIsReported(@TempDir Path dir) throws Exception {
    Table table = table(dir);
    append(table, 1);
    long first = table.currentSnapshot().timestampMillis();
    append(table, 2);
    append(table, 3);
    Snapshot newest = table.currentSnapshot();

    WriterClock.Ahead ahead = WriterClock.ahead(read(table), first - 5000, SECOND).orElseThrow();

    assertThat(ahead.snapshotId()).hasValue(newest.snapshotId());
    assertThat(ahead.by()).isEqualTo(Duration.ofMillis(newest.timestampMillis() - first + 5000));
  }

  /** A snapshot rolled back to is stamped when it was made; the log says when it became current. */
  @Test
  void aSnapshotLogEntryIsAWritersStampToo(@TempDir Path dir) throws Exception {
    Table table = table(dir);
    append(table, 1);
    Snapshot first = table.currentSnapshot();
    append(table, 2);
    long second = table.currentSnapshot().timestampMillis();
    Thread.sleep(5);
    table.manageSnapshots().rollbackTo(first.snapshotId()).commit();
    TableMetadata metadata = read(table);
    long rolledBackAt = metadata.snapshotLog().get(metadata.snapshotLog().size() - 1).timestampMs();
    assertThat(rolledBackAt).isGreaterThan(second);

    WriterClock.Ahead ahead = WriterClock.ahead(metadata, second, Duration.ZERO).orElseThrow();

    assertThat(ahead.snapshotId()).hasValue(first.snapshotId());
    assertThat(ahead.stampedMs()).isEqualTo(rolledBackAt);
  }

  @Test
  void aTableWithoutSnapshotsIsJudgedByItsLastUpdatedMs(@TempDir Path dir) throws Exception {
    Table table = table(dir);
    TableMetadata metadata = read(table);
    assertThat(metadata.snapshots()).isEmpty();
    long updated = metadata.lastUpdatedMs();

    assertThat(WriterClock.ahead(metadata, updated, Duration.ZERO)).isEmpty();
    WriterClock.Ahead ahead = WriterClock.ahead(metadata, updated - 2000, SECOND).orElseThrow();
    assertThat(ahead.snapshotId()).isEmpty();
    assertThat(ahead.by()).isEqualTo(Duration.ofMillis(2000));
  }

  /**
   * An expired snapshot is no longer in the metadata, so its stamp is not judged; a {@code
   * snapshot-log} entry still naming one (as a replica's retention leaves the log) still is.
   */
  @Test
  void anExpiredSnapshotIsNotJudgedButALogEntryNamingOneIs(@TempDir Path dir) throws Exception {
    Table table = table(dir);
    append(table, 1);
    append(table, 2);
    Snapshot kept = table.currentSnapshot();
    table.expireSnapshots().expireOlderThan(Long.MAX_VALUE).retainLast(1).commit();
    TableMetadata metadata = read(table);
    assertThat(metadata.snapshots()).hasSize(1);
    long readBy = Math.max(kept.timestampMillis(), metadata.lastUpdatedMs());
    assertThat(WriterClock.ahead(metadata, readBy, Duration.ZERO)).isEmpty();

    long expiredId = kept.snapshotId() + 1;
    List<TableMetadata.SnapshotLogEntry> log = new ArrayList<>(metadata.snapshotLog());
    log.add(0, new TableMetadata.SnapshotLogEntry(readBy + 3000, expiredId));
    TableMetadata withExpiredEntry = metadata.toBuilder().snapshotLog(log).build("test");

    WriterClock.Ahead ahead = WriterClock.ahead(withExpiredEntry, readBy, SECOND).orElseThrow();
    assertThat(ahead.snapshotId()).isEqualTo(OptionalLong.of(expiredId));
    assertThat(ahead.by()).isEqualTo(Duration.ofMillis(3000));
  }

  @Test
  void aNegativeAllowanceIsRefused(@TempDir Path dir) throws Exception {
    TableMetadata metadata = read(table(dir));
    assertThatThrownBy(() -> WriterClock.ahead(metadata, 0, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot judge writers' clocks: the allowance PT-0.001S is negative");
  }

  private static Table table(Path dir) {
    return new HadoopTables(new Configuration())
        .create(SCHEMA, PartitionSpec.unpartitioned(), dir.resolve("t").toUri().toString());
  }

  private static void append(Table table, int n) throws InterruptedException {
    Thread.sleep(3);
    DataFile file =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(table.location() + "/data/f-" + n + ".parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(100)
            .withRecordCount(1)
            .build();
    table.newAppend().appendFile(file).commit();
  }

  private static TableMetadata read(Table table) throws IOException {
    String file = ((HasTableOperations) table).operations().current().metadataFileLocation();
    try (InputStream in = Files.newInputStream(Path.of(java.net.URI.create(file)))) {
      return TableMetadataParser.read(in, file, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES);
    }
  }
}
