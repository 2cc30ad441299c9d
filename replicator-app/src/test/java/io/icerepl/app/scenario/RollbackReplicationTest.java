package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source rolls back main to an older snapshot; time travel on the replica must agree. */
class RollbackReplicationTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @Test
  void rollbackAfterAnEarlierReplicationIsReplicated(@TempDir Path dir) {
    ScenarioTable source = threeAppends(dir);
    String target = dir.resolve("replica").toString();
    Replication.replicate(source.location(), target);
    verifier.verify(source, target);

    rollBackToFirstThenAppend(source);
    Replication.replicate(source.location(), target);

    assertAsOfTimeAgrees(source, target);
    verifier.verify(source, target);
  }

  @Test
  void rollbackInTheHistoryOfAFirstReplicationIsReplicated(@TempDir Path dir) {
    ScenarioTable source = threeAppends(dir);
    rollBackToFirstThenAppend(source);
    String target = dir.resolve("replica").toString();

    Replication.replicate(source.location(), target);

    assertAsOfTimeAgrees(source, target);
    verifier.verify(source, target);
  }

  private static ScenarioTable threeAppends(Path dir) {
    ScenarioTable source =
        ScenarioTable.create(
            "ROLLBACK",
            dir.resolve("source").toUri().toString(),
            Scenario.SCHEMA,
            PartitionSpec.unpartitioned(),
            null,
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    source.append(source.row(1, "a", "x"));
    source.append(source.row(2, "b", "x"));
    source.append(source.row(3, "c", "y"));
    source.record();
    return source;
  }

  /** Rolls main back to the first snapshot, records, appends on top of it, records again. */
  private static void rollBackToFirstThenAppend(ScenarioTable source) {
    Table table = source.table();
    long first = table.history().get(0).snapshotId();
    long before = table.currentSnapshot().snapshotId();
    table.manageSnapshots().rollbackTo(first).commit();
    assertThat(source.table().currentSnapshot().snapshotId()).isEqualTo(first).isNotEqualTo(before);
    source.record();
    source.append(source.row(4, "d", "z"));
    source.record();
  }

  /** For every recorded timestamp, asOfTime picks the same snapshot, with the same rows. */
  private void assertAsOfTimeAgrees(ScenarioTable source, String target) {
    Table replica = verifier.load(target);
    Table sourceTable = source.table();
    for (long ts : source.expectations().asOfTime().keySet()) {
      assertThat(ScenarioTable.asOfTime(replica, ts, id -> null))
          .as("asOfTime(%s) on the replica", ts)
          .isEqualTo(ScenarioTable.asOfTime(sourceTable, ts, id -> null));
    }
  }
}
