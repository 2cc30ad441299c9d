package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicates, lets the source move on (a schema change, appends, a row-level delete, then an expiry
 * that keeps only the current snapshot), replicates again, and once more with nothing new.
 */
class IncrementalReplicationTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @Test
  void newSourceVersionsAreAppliedInOrderAndExpiredSnapshotsStayReadable(@TempDir Path dir)
      throws Exception {
    ScenarioTable source =
        ScenarioTable.create(
            "INCREMENTAL",
            dir.resolve("source").toString(),
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    DataFile first = source.append(source.row(1, "a", "x"), source.row(2, "b", "x")).get(0);
    source.append(source.row(3, "c", "y"));
    source.record();
    String target = dir.resolve("replica").toUri().toString();

    // first run
    Replication.replicate(source.location(), target);
    verifier.verify(source, target);
    Set<Path> sourceVersionsBefore = new HashSet<>(Replication.versionFiles(source.location()));
    int replicaLogBefore = metadata(verifier.load(target)).previousFiles().size();

    // the source moves on: a column added (no snapshot), appends, a position delete, an expiry
    source
        .table()
        .updateSchema()
        .addColumn("extra", org.apache.iceberg.types.Types.LongType.get())
        .commit();
    source.append(source.row(4, "d", "x", 40L), source.row(5, "e", "z"));
    source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, first, 0));
    source.append(source.row(6, "f", "y"));
    source.record();
    Set<Long> beforeExpiry = snapshotIds(source.table());
    Thread.sleep(5);
    // the files stay until the replica has them: a replicator running behind a cleaning expiry is
    // FallingBehindSourceRetentionTest
    source
        .table()
        .expireSnapshots()
        .expireOlderThan(System.currentTimeMillis())
        .retainLast(1)
        .cleanExpiredFiles(false)
        .commit();
    source.record();
    Set<Long> expired = new HashSet<>(beforeExpiry);
    expired.removeAll(snapshotIds(source.table()));
    assertThat(expired).as("snapshots the source expired").hasSizeGreaterThanOrEqualTo(4);
    List<Path> newSourceVersions =
        Replication.versionFiles(source.location()).stream()
            .filter(p -> !sourceVersionsBefore.contains(p))
            .collect(Collectors.toList());
    assertThat(newSourceVersions).hasSize(5);

    // second run
    Replication.replicate(source.location(), target);
    Table replica = verifier.load(target);
    TableMetadata replicaCurrent = metadata(replica);
    Table sourceTable = source.table();

    assertThat(replicaCurrent.previousFiles().size() - replicaLogBefore)
        .as("growth of the replica's metadata-log")
        .isEqualTo(newSourceVersions.size());
    assertThat(pairs(replicaCurrent.snapshotLog()))
        .as("the replica's snapshot-log ends with the source's")
        .endsWith(pairs(metadata(sourceTable).snapshotLog()).toArray(new String[0]));
    assertNewVersionsMatchInOrder(replica.io(), replicaCurrent, newSourceVersions);
    for (long id : expired) {
      assertThat(replica.snapshot(id)).as("expired snapshot %s on the replica", id).isNotNull();
      assertThat(Rows.atSnapshot(replica, id))
          .as("rows of snapshot %s, expired on the source", id)
          .isEqualTo(source.expectations().snapshotRows().get(id));
    }
    verifier.verify(source, target);

    // third run: nothing new, nothing written
    List<String> replicaFilesBefore = Replication.metadataDirListing(target);
    String hintBefore = versionHint(target);
    Replication.replicate(source.location(), target);
    assertThat(Replication.metadataDirListing(target)).isEqualTo(replicaFilesBefore);
    assertThat(versionHint(target)).isEqualTo(hintBefore);
    verifier.verify(source, target);
  }

  /**
   * The replica's newest versions correspond one to one, in order, to the new source versions: same
   * current snapshot, same last sequence number, same refs, same last snapshot-log entry.
   */
  private static void assertNewVersionsMatchInOrder(
      FileIO replicaIo, TableMetadata replicaCurrent, List<Path> newSourceVersions) {
    int n = newSourceVersions.size();
    List<TableMetadata.MetadataLogEntry> log = replicaCurrent.previousFiles();
    List<TableMetadata> replicaVersions = new ArrayList<>();
    for (TableMetadata.MetadataLogEntry entry : log.subList(log.size() - (n - 1), log.size())) {
      replicaVersions.add(TableMetadataParser.read(replicaIo, entry.file()));
    }
    replicaVersions.add(replicaCurrent);
    for (int i = 0; i < n; i++) {
      TableMetadata want = TableMetadataParser.read(replicaIo, newSourceVersions.get(i).toString());
      TableMetadata got = replicaVersions.get(i);
      String which =
          "replica version "
              + (i + 1)
              + " of "
              + n
              + " vs source "
              + newSourceVersions.get(i).getFileName();
      assertThat(summary(got)).as(which).isEqualTo(summary(want));
    }
  }

  private static String summary(TableMetadata m) {
    Map<String, Long> refs = new TreeMap<>();
    m.refs().forEach((name, ref) -> refs.put(name, ref.snapshotId()));
    List<HistoryEntry> log = m.snapshotLog();
    return "current="
        + (m.currentSnapshot() == null ? null : m.currentSnapshot().snapshotId())
        + " lastSeq="
        + m.lastSequenceNumber()
        + " refs="
        + refs
        + " lastLogEntry="
        + (log.isEmpty() ? null : pairs(log.subList(log.size() - 1, log.size())));
  }

  static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }

  static List<String> pairs(List<HistoryEntry> log) {
    return log.stream()
        .map(e -> e.snapshotId() + "@" + e.timestampMillis())
        .collect(Collectors.toList());
  }

  static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    for (Snapshot s : table.snapshots()) {
      ids.add(s.snapshotId());
    }
    return ids;
  }

  private static String versionHint(String location) throws Exception {
    return Files.readString(
        Paths.get(ReplicaVerifier.localPath(location), "metadata", "version-hint.text"));
  }
}
