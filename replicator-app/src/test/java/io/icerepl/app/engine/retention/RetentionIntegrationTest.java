package io.icerepl.app.engine.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.retention.ExpireOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica's own retention, end to end: source tables written with the Iceberg library,
 * replicated, expired on the replica, read back with the Iceberg library.
 */
class RetentionIntegrationTest {
  private static final long DAY = Duration.ofDays(1).toMillis();

  @TempDir Path dir;

  private ExecutorService executor;
  private SourceTable source;
  private String replica;
  private final Map<Long, List<String>> recorded = new HashMap<>();
  private long s1;
  private long s2;
  private long s3;
  private long s4;
  private DataFile fileA;

  @BeforeEach
  void writeSourceAndReplicate() throws Exception {
    executor = Executors.newFixedThreadPool(2);
    source = SourceTable.create(dir.resolve("source"), 2);
    fileA = source.append("a", 3);
    s1 = current();
    Thread.sleep(3);
    source.append("b", 2);
    s2 = current();
    Thread.sleep(3);
    source.table.newDelete().deleteFile(fileA).commit();
    s3 = current();
    Thread.sleep(3);
    source.append("c", 1);
    s4 = current();
    record();
    replica = dir.resolve("replica").toUri().toString();
    replicate();
  }

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private long current() {
    source.table.refresh();
    return source.table.currentSnapshot().snapshotId();
  }

  private void record() {
    source.table.refresh();
    for (Snapshot snapshot : source.table.snapshots()) {
      recorded.putIfAbsent(
          snapshot.snapshotId(), SourceTable.rows(source.table, snapshot.snapshotId()));
    }
  }

  private void replicate() {
    LocalObjectStore store = new LocalObjectStore();
    TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build()
        .replicate(source.location, replica, Optional.empty());
  }

  private RetentionResult expire(
      ObjectStore store, long clockOffsetMs, ExpireOptions options, boolean ownsFiles) {
    Clock clock = Clock.offset(Clock.systemUTC(), Duration.ofMillis(clockOffsetMs));
    return new RetentionRunner(store, clock, new RetentionSettings(ownsFiles, 1000, Long.MAX_VALUE))
        .expire(replica, Optional.empty(), UnaryOperator.identity(), options);
  }

  private static ExpireOptions keep(long periodMs, int retainLast, boolean dryRun) {
    return new ExpireOptions(
        Optional.empty(), Optional.of(periodMs), Optional.of(retainLast), Set.of(), dryRun);
  }

  private Table replicaTable() {
    return SourceTable.TABLES.load(replica);
  }

  private void assertReplicaReads(long... snapshotIds) {
    Table table = replicaTable();
    for (long id : snapshotIds) {
      assertThat(table.snapshot(id)).as("snapshot %s on the replica", id).isNotNull();
      assertThat(SourceTable.rows(table, id))
          .as("rows of snapshot %s on the replica", id)
          .isEqualTo(recorded.get(id));
    }
  }

  private Path replicaPathOf(DataFile file) {
    String relative =
        file.location().substring(file.location().indexOf("/source/") + "/source/".length());
    return dir.resolve("replica").resolve(relative);
  }

  @Test
  void aLongerRetentionKeepsWhatTheSourceExpiredUntilItsOwnPolicySaysSo() throws Exception {
    // the source keeps a short history: s1 and s2 expire there, with their files
    source
        .table
        .expireSnapshots()
        .expireOlderThan(source.table.snapshot(s3).timestampMillis())
        .commit();
    source.append("d", 1);
    long s5 = current();
    record();
    replicate();
    assertReplicaReads(s1, s2, s3, s4, s5);

    // 30 days on, a 90-day policy expires nothing
    RetentionResult early =
        expire(new LocalObjectStore(), 30 * DAY, keep(90 * DAY, 1, false), false);
    assertThat(early.expiredSnapshotIds()).isEmpty();
    assertReplicaReads(s1, s2, s3, s4, s5);

    // 100 days on, it expires all but the current snapshot; only file A was reached by them alone
    assertThat(Files.exists(replicaPathOf(fileA))).isTrue();
    RetentionResult late =
        expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, false), false);
    assertThat(late.expiredSnapshotIds()).containsExactlyInAnyOrder(s1, s2, s3, s4);
    assertThat(late.metrics())
        .containsEntry("deletedDataFilesCount", 1)
        .containsEntry("deletedManifestListsCount", 4)
        .containsEntry("dryRun", false);
    assertThat(Files.exists(replicaPathOf(fileA))).isFalse();
    assertReplicaReads(s5);
    assertThat(replicaTable().snapshot(s1)).isNull();
  }

  @Test
  void aDryRunChangesNothingAndCountsWhatARealRunDeletes() throws Exception {
    Map<String, String> before = contents(dir.resolve("replica"));

    RetentionResult dry = expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, true), false);

    assertThat(contents(dir.resolve("replica"))).isEqualTo(before);
    assertThat(dry.dryRun()).isTrue();
    RetentionResult real =
        expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, false), false);
    Map<String, Object> dryMetrics = new HashMap<>(dry.metrics());
    Map<String, Object> realMetrics = new HashMap<>(real.metrics());
    dryMetrics.remove("dryRun");
    realMetrics.remove("dryRun");
    assertThat(dryMetrics).isEqualTo(realMetrics);
    assertThat(dry.deleted()).isEqualTo(real.deleted());
    assertThat(real.deleted().all())
        .as("files the same plan deletes without a dry run")
        .isNotEmpty();
    Map<String, String> after = contents(dir.resolve("replica"));
    for (String deleted : real.deleted().all()) {
      String relative = deleted.substring(deleted.indexOf("/replica/") + "/replica/".length());
      assertThat(before).containsKey(relative);
      assertThat(after).doesNotContainKey(relative);
    }
  }

  @Test
  void theDeletionTellsItsProgressAndDeletesContentsBeforeWhatNamesThem() throws Exception {
    List<String> deletedInOrder = new java.util.ArrayList<>();
    ObjectStore watching =
        new io.icerepl.copier.store.ForwardingObjectStore(new LocalObjectStore()) {
          @Override
          public void delete(String path) throws IOException {
            deletedInOrder.add(path);
            super.delete(path);
          }

          @Override
          public void deleteAll(List<String> paths) throws IOException {
            deletedInOrder.addAll(paths);
            super.deleteAll(paths);
          }
        };
    List<DeletionProgress> steps = new java.util.ArrayList<>();
    Clock clock = Clock.offset(Clock.systemUTC(), Duration.ofMillis(100 * DAY));
    RetentionResult result =
        new RetentionRunner(
                watching, clock, new RetentionSettings(false, 1000, Long.MAX_VALUE), steps::add)
            .expire(replica, Optional.empty(), UnaryOperator.identity(), keep(90 * DAY, 1, false));

    int deleted = result.deleted().all().size();
    assertThat(deleted).isGreaterThan(2);
    assertThat(steps).isNotEmpty();
    DeletionProgress last = steps.get(steps.size() - 1);
    assertThat(last.filesDone()).isEqualTo(deleted);
    assertThat(last.filesTotal()).isEqualTo(deleted);
    assertThat(steps).extracting(DeletionProgress::filesDone).isSorted();
    assertThat(deletedInOrder).containsExactlyInAnyOrderElementsOf(result.deleted().all());
    // contents, then manifests, then manifest lists
    int lastContent = -1;
    int firstManifest = Integer.MAX_VALUE;
    int lastManifest = -1;
    int firstList = Integer.MAX_VALUE;
    for (int i = 0; i < deletedInOrder.size(); i++) {
      String path = deletedInOrder.get(i);
      if (result.deleted().manifestLists().contains(path)) {
        firstList = Math.min(firstList, i);
      } else if (result.deleted().manifests().contains(path)) {
        firstManifest = Math.min(firstManifest, i);
        lastManifest = i;
      } else {
        lastContent = i;
      }
    }
    assertThat(lastContent).isLessThan(firstManifest);
    assertThat(lastManifest).isLessThan(firstList);
  }

  @Test
  void aShorterRetentionIsNotUndoneByReplicationUntilTheSourceRollsBack() throws Exception {
    RetentionResult result = expire(new LocalObjectStore(), 0, keep(0, 1, false), false);
    assertThat(result.expiredSnapshotIds()).containsExactlyInAnyOrder(s1, s2, s3);
    assertThat(Files.exists(replicaPathOf(fileA))).isFalse();

    source.append("d", 2);
    long s5 = current();
    record();
    replicate();
    Table table = replicaTable();
    assertThat(table.snapshot(s1)).isNull();
    assertThat(table.snapshot(s2)).isNull();
    assertReplicaReads(s4, s5);

    // the source rolls back to s2, which the replica expired: it comes back, files included
    source.table.manageSnapshots().rollbackTo(s2).commit();
    replicate();
    table = replicaTable();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(s2);
    assertThat(Files.exists(replicaPathOf(fileA))).isTrue();
    assertReplicaReads(s2, s4, s5);
  }

  @Test
  void aCrashBetweenPublishAndDeleteLeavesOrphansThatTheNextRunRemoves() throws Exception {
    FaultInjectingStore crashing = FaultInjectingStore.crashingAtFirstDelete();
    assertThatThrownBy(() -> expire(crashing, 100 * DAY, keep(90 * DAY, 1, false), false))
        .hasMessageContaining("injected crash deleting");
    assertThat(crashing.crashed()).isTrue();
    assertReplicaReads(s4);
    assertThat(replicaTable().snapshot(s1)).isNull();
    assertThat(Files.exists(replicaPathOf(fileA))).as("orphan left by the crash").isTrue();

    expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, false), false);

    assertThat(Files.exists(replicaPathOf(fileA))).as("orphan after the rerun").isFalse();
    assertReplicaReads(s4);
  }

  @Test
  void aCrashHalfwayThroughTheDeletesIsFinishedByTheNextRun() throws Exception {
    // data files and manifests are gone, the first manifest list is not
    FaultInjectingStore crashing =
        FaultInjectingStore.crashingAtFirstDeleteOf(p -> p.contains("/metadata/snap-"));
    assertThatThrownBy(() -> expire(crashing, 100 * DAY, keep(90 * DAY, 1, false), false))
        .hasMessageContaining("injected crash deleting");
    assertThat(Files.exists(replicaPathOf(fileA))).isFalse();
    long listsLeft;
    try (Stream<Path> files = Files.list(dir.resolve("replica/metadata"))) {
      listsLeft = files.filter(p -> p.getFileName().toString().startsWith("snap-")).count();
    }
    assertThat(listsLeft).as("manifest lists after the crash").isEqualTo(4);

    RetentionResult rerun =
        expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, false), false);

    assertThat(rerun.expiredSnapshotIds()).isEmpty();
    try (Stream<Path> files = Files.list(dir.resolve("replica/metadata"))) {
      assertThat(files.filter(p -> p.getFileName().toString().startsWith("snap-")).count())
          .as("manifest lists after the rerun")
          .isEqualTo(1);
    }
    assertReplicaReads(s4);
  }

  @Test
  void gcDisabledKeepsFilesUnlessTheReplicaOwnsThem() throws Exception {
    source.table.updateProperties().set("gc.enabled", "false").commit();
    replicate();

    RetentionResult kept =
        expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, false), false);
    assertThat(kept.expiredSnapshotIds()).isNotEmpty();
    assertThat(kept.filesKept()).isTrue();
    assertThat(kept.deleted().all()).isEmpty();
    assertThat(Files.exists(replicaPathOf(fileA))).isTrue();
    assertThat(replicaTable().snapshot(s1)).isNull();
  }

  @Test
  void theReplicaOwningItsFilesDeletesDespiteGcDisabled() throws Exception {
    source.table.updateProperties().set("gc.enabled", "false").commit();
    replicate();

    RetentionResult owned =
        expire(new LocalObjectStore(), 100 * DAY, keep(90 * DAY, 1, false), true);
    assertThat(owned.filesKept()).isFalse();
    assertThat(Files.exists(replicaPathOf(fileA))).isFalse();
  }

  @Test
  void theExpireCommandPrintsTheMetricsAndRefusesBadArguments() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        ReplicatorCli.execute(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "expire",
            "--target",
            replica,
            "--retention-period",
            "0ms",
            "--retain-last",
            "1",
            "--dry-run");
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains(
            "deleted_data_files_count 1\n",
            "deleted_position_delete_files_count 0\n",
            "deleted_equality_delete_files_count 0\n",
            "deleted_manifest_files_count ",
            "deleted_manifest_lists_count 3\n",
            "deleted_statistics_files_count 0\n",
            "dry_run true\n");

    StringWriter badErr = new StringWriter();
    int bad =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(badErr, true),
            "expire",
            "--target",
            replica,
            "--snapshot-ids",
            Long.toString(s1),
            "--retain-last",
            "2");
    assertThat(bad).isEqualTo(2);
    assertThat(badErr.toString())
        .contains(
            "error: Cannot expire snapshots: --snapshot-ids cannot be combined with --retention-period or --retain-last");

    StringWriter badDuration = new StringWriter();
    assertThat(
            ReplicatorCli.execute(
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(badDuration, true),
                "expire",
                "--target",
                replica,
                "--retention-period",
                "ninety days"))
        .isEqualTo(2);
    assertThat(badDuration.toString()).contains("error: Cannot parse duration 'ninety days'");
  }

  @Test
  void theExpireCommandRefusesAMetadataFileOverItsMaxMetadataBytesAndLeavesTheReplicaAsItWas()
      throws IOException {
    Path replicaDir = dir.resolve("replica");
    Map<String, String> before = contents(replicaDir);
    StringWriter err = new StringWriter();

    int code =
        ReplicatorCli.execute(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true),
            "expire",
            "--target",
            replica,
            "--retention-period",
            "0ms",
            "--retain-last",
            "1",
            "--max-metadata-bytes",
            "100");

    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .contains(
            "error: Cannot read table metadata ",
            "v1.metadata.json: larger than the configured limit of 100 bytes");
    assertThat(contents(replicaDir)).isEqualTo(before);
  }

  private static Map<String, String> contents(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(p).toString(), sha256(Files.readAllBytes(p)));
      }
    }
    return files;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
