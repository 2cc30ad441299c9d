package io.icerepl.app.engine.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.RetentionPolicy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An expiry of the replica stops between its deletion phases; before anything finishes it, the
 * source brings an expired snapshot back (a rollback, a cherry-pick of a staged snapshot) or
 * appends to a branch the replica dropped. The next replication must not take the half-deleted
 * manifest lists and manifests as proof that their files are in place: every snapshot and ref of
 * the replica reads what the source read.
 */
class ReplicationAfterInterruptedExpiryTest {
  /** Where the expiry stops. */
  enum Crash {
    /** contents deleted, manifests and manifest lists not */
    BEFORE_MANIFESTS(
        p -> name(p).endsWith(".avro") && !name(p).startsWith("snap-") && p.contains("/metadata/")),
    /** contents and manifests deleted, manifest lists not */
    BEFORE_MANIFEST_LISTS(p -> name(p).startsWith("snap-"));

    final Predicate<String> firstDeleteNotDone;

    Crash(Predicate<String> firstDeleteNotDone) {
      this.firstDeleteNotDone = firstDeleteNotDone;
    }

    private static String name(String path) {
      return path.substring(path.lastIndexOf('/') + 1);
    }
  }

  @TempDir Path dir;

  private ExecutorService executor;
  private SourceTable source;
  private String replica;
  private final Map<Long, List<String>> recorded = new HashMap<>();

  @BeforeEach
  void createSource() {
    executor = Executors.newFixedThreadPool(2);
    source = SourceTable.create(dir.resolve("source"), 2);
    replica = dir.resolve("replica").toUri().toString();
  }

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Crash.class)
  void aRollbackToAnExpiredSnapshotReadsEveryRow(Crash crash) {
    DataFile a = source.append("a", 3);
    long s1 = current();
    source.table.newDelete().deleteFile(a).commit();
    source.append("b", 2);
    replicate();

    expireCrashing(
        crash,
        new ExpireOptions(Optional.empty(), Optional.empty(), Optional.empty(), Set.of(s1), false),
        Optional.empty());
    assertThat(replicaTable().snapshot(s1)).isNull();

    source.table.manageSnapshots().rollbackTo(s1).commit();
    replicate();

    assertThat(replicaTable().currentSnapshot().snapshotId()).isEqualTo(s1);
    ReplicaReads.assertReadsAsRecorded(replicaTable(), recorded, source.table, source.location);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Crash.class)
  void aCherryPickOfAnExpiredStagedSnapshotReadsEveryRow(Crash crash) {
    source.append("a", 3);
    source.table.updateProperties().set("write.wap.enabled", "true").commit();
    source
        .table
        .newAppend()
        .appendFile(source.writeData("b", 2))
        .set("wap.id", "audit-1")
        .stageOnly()
        .commit();
    source.table.refresh();
    long staged =
        java.util.stream.StreamSupport.stream(source.table.snapshots().spliterator(), false)
            .filter(s -> "audit-1".equals(s.summary().get("wap.id")))
            .findFirst()
            .orElseThrow()
            .snapshotId();
    replicate();
    assertThat(replicaTable().snapshot(staged)).isNotNull();

    expireCrashing(
        crash,
        new ExpireOptions(
            Optional.empty(), Optional.empty(), Optional.empty(), Set.of(staged), false),
        Optional.empty());
    assertThat(replicaTable().snapshot(staged)).isNull();

    source.table.manageSnapshots().cherrypick(staged).commit();
    replicate();

    assertThat(replicaTable().currentSnapshot().snapshotId())
        .as("a fast-forward cherry-pick")
        .isEqualTo(staged);
    ReplicaReads.assertReadsAsRecorded(replicaTable(), recorded, source.table, source.location);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Crash.class)
  void anAppendToADroppedBranchReadsEveryRow(Crash crash) {
    source.append("a", 3);
    source.table.manageSnapshots().createBranch("b", current()).commit();
    source.table.newAppend().appendFile(source.writeData("b", 2)).toBranch("b").commit();
    source.table.refresh();
    long onBranch = source.table.refs().get("b").snapshotId();
    source.append("c", 1);
    replicate();

    // the replica's policy drops the branch (any age is too old) and expires its unreferenced
    // snapshot
    expireCrashing(
        crash,
        new ExpireOptions(Optional.empty(), Optional.of(0L), Optional.of(10), Set.of(), false),
        Optional.of(new RetentionPolicy(10, 0, 0)));
    assertThat(replicaTable().refs()).doesNotContainKey("b");
    assertThat(replicaTable().snapshot(onBranch)).isNull();

    source.table.newAppend().appendFile(source.writeData("d", 1)).toBranch("b").commit();
    replicate();

    assertThat(replicaTable().refs()).containsKey("b");
    ReplicaReads.assertReadsAsRecorded(replicaTable(), recorded, source.table, source.location);
  }

  private void expireCrashing(
      Crash crash, ExpireOptions options, Optional<RetentionPolicy> policy) {
    FaultInjectingStore crashing =
        FaultInjectingStore.crashingAtFirstDeleteOf(crash.firstDeleteNotDone);
    Clock later = Clock.fixed(Instant.ofEpochMilli(newestTimestamp() + 1000), ZoneOffset.UTC);
    assertThatThrownBy(
            () ->
                new RetentionRunner(
                        crashing, later, new RetentionSettings(false, 1000, Long.MAX_VALUE))
                    .expire(replica, policy, UnaryOperator.identity(), options))
        .hasMessageContaining("injected crash deleting");
  }

  private long newestTimestamp() {
    source.table.refresh();
    long newest = 0;
    for (Snapshot snapshot : source.table.snapshots()) {
      newest = Math.max(newest, snapshot.timestampMillis());
    }
    return newest;
  }

  private void replicate() {
    source.table.refresh();
    for (Snapshot snapshot : source.table.snapshots()) {
      recorded.putIfAbsent(
          snapshot.snapshotId(), SourceTable.rows(source.table, snapshot.snapshotId()));
    }
    LocalObjectStore store = new LocalObjectStore();
    TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
        .clock(Clock.fixed(Instant.ofEpochMilli(newestTimestamp() + 1), ZoneOffset.UTC))
        .build()
        .replicate(source.location, replica, Optional.empty());
  }

  private long current() {
    source.table.refresh();
    return source.table.currentSnapshot().snapshotId();
  }

  private Table replicaTable() {
    return SourceTable.TABLES.load(replica);
  }
}
