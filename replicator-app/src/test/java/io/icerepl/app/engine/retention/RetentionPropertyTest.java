package io.icerepl.app.engine.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.RetentionPolicy;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Over random histories — appends on main and on a branch, tags, file deletes, position deletes,
 * files rewritten by compaction, manifests rewritten and shared, rollbacks, staged snapshots and
 * cherry-picks of them — interleaved with replications and with expiries of the replica that often
 * stop at a random delete (a crash):
 *
 * <ul>
 *   <li>after every replication, every snapshot and ref of the replica reads what the source read,
 *       also when the source brought back a snapshot (or appended to a branch) whose files an
 *       interrupted expiry had half deleted;
 *   <li>after every expiry, crashed or not, every retained snapshot still reads what it read;
 *   <li>after every expiry that finished, exactly the snapshots the policy does not protect are
 *       gone, and no manifest list, manifest, data or delete file is left that no retained snapshot
 *       reaches.
 * </ul>
 *
 * <p>Every decision (operations, the snapshot or file each picks, policy, when to crash) comes from
 * the seed and the order of the history, never from Iceberg's random ids and file names. The clocks
 * of replication and expiry are fixed clocks set from the newest source snapshot, and every age cut
 * lies at a snapshot's timestamp, at zero or at ten days: which snapshots a policy protects follows
 * from the order of the commits, not from how fast the machine made them. Every history must also
 * see an expiry that expires snapshots and deletes their files, so an expiry that does nothing
 * fails.
 */
class RetentionPropertyTest {
  private static final int HISTORIES = 12;
  private static final long DAY = 24L * 3600 * 1000;

  enum Kind {
    APPEND,
    APPEND_TO_BRANCH,
    TAG,
    DELETE_FILE,
    POSITION_DELETE,
    COMPACT,
    REWRITE_MANIFESTS,
    ROLLBACK,
    STAGE,
    CHERRY_PICK
  }

  /** What makes replication bring back what the replica expired. */
  private static final Kind[] BRINGING_BACK = {
    Kind.ROLLBACK, Kind.CHERRY_PICK, Kind.APPEND_TO_BRANCH, Kind.TAG
  };

  /**
   * Where an expiry stops: before its first manifest, before its first manifest list, or anywhere.
   */
  enum Crash {
    NONE,
    BEFORE_MANIFESTS,
    BEFORE_MANIFEST_LISTS,
    AT_RANDOM
  }

  record Op(Kind kind, int pick) {}

  /** One random history and policy per seed; a failure names its seed, which replays it exactly. */
  static LongStream seeds() {
    return LongStream.range(20261129L, 20261129L + HISTORIES);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void replicationAndInterruptedExpiriesKeepWhatThePolicyProtectsAndRemoveTheRest(
      long seed, @TempDir Path dir) throws Exception {
    Random random = new Random(seed);
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source
        .table
        .updateProperties()
        .set("commit.manifest.min-count-to-merge", "3")
        .set("write.wap.enabled", "true")
        .commit();
    History history = new History(source);
    history.apply(new Op(Kind.APPEND, 0), Set.of(), Set.of());
    String replica = dir.resolve("replica").toUri().toString();
    Map<Long, List<String>> recorded = new HashMap<>();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0, rounds = 4 + random.nextInt(3); round < rounds; round++) {
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          ReplicaState state = replicaState(replica);
          Set<Long> halfDeleted = new HashSet<>();
          state.pendingDeletes().forEach(d -> halfDeleted.add(d.snapshotId()));
          // mostly bring something back while an interrupted expiry is pending: the hazard
          Kind kind =
              random.nextInt(4) < (halfDeleted.isEmpty() ? 2 : 3)
                  ? BRINGING_BACK[random.nextInt(BRINGING_BACK.length)]
                  : Kind.values()[random.nextInt(Kind.values().length)];
          history.apply(new Op(kind, random.nextInt(100)), halfDeleted, state.expiredSnapshotIds());
        }
        replicate(history, replica, recorded, executor);
        expire(
            random,
            replica,
            history.newest() + 1000,
            recorded,
            source,
            dir.resolve("replica"),
            false);
      }
      // Most random expiries of a history crash or find nothing to expire, which an expiry that
      // does nothing would pass: the last one keeps only the current snapshot, and must finish
      // with the snapshot before it expired and its files deleted.
      history.apply(new Op(Kind.APPEND, random.nextInt(100)), Set.of(), Set.of());
      replicate(history, replica, recorded, executor);
      assertThat(
              expire(
                  random,
                  replica,
                  history.newest() + 1000,
                  recorded,
                  source,
                  dir.resolve("replica"),
                  true))
          .as("the last expiry expired snapshots and deleted their files")
          .isTrue();
    } finally {
      executor.shutdownNow();
    }
  }

  private static void replicate(
      History history, String replica, Map<Long, List<String>> recorded, ExecutorService executor)
      throws IOException {
    SourceTable source = history.source;
    source.table.refresh();
    source
        .table
        .snapshots()
        .forEach(
            s ->
                recorded.putIfAbsent(
                    s.snapshotId(), SourceTable.rows(source.table, s.snapshotId())));
    LocalObjectStore store = new LocalObjectStore();
    TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
        .clock(Clock.fixed(Instant.ofEpochMilli(history.newest() + 1), ZoneOffset.UTC))
        .build()
        .replicate(source.location, replica, Optional.empty());
    assertReads(replica, recorded, source);
  }

  private static void assertReads(
      String replica, Map<Long, List<String>> recorded, SourceTable source) throws IOException {
    ReplicaReads.assertReadsAsRecorded(
        SourceTable.TABLES.load(replica),
        recorded,
        source.table,
        source.location,
        replicaState(replica).droppedRefs());
  }

  private static ReplicaState replicaState(String replica) throws IOException {
    return new ReplicaFiles(new LocalObjectStore(), Long.MAX_VALUE).state(replica);
  }

  /**
   * One expiry with a random policy, stopped by a crash three times out of four.
   *
   * @param keepOnlyCurrent instead, keep only the current snapshot (drop every other ref) and
   *     finish
   * @return whether it finished, expired snapshots and deleted files
   */
  private static boolean expire(
      Random random,
      String replica,
      long now,
      Map<Long, List<String>> recorded,
      SourceTable source,
      Path replicaDir,
      boolean keepOnlyCurrent)
      throws IOException {
    Table before = SourceTable.TABLES.load(replica);
    List<Long> timestamps = new ArrayList<>();
    before.snapshots().forEach(s -> timestamps.add(s.timestampMillis()));
    timestamps.sort(null);
    // no snapshot sits on the boundary: timestamps differ, and a cut lies 1 ms past one of them
    long cut = now - timestamps.get(random.nextInt(timestamps.size())) + 1;
    long periodMs = keepOnlyCurrent ? 0L : new long[] {0L, cut, 10 * DAY}[random.nextInt(3)];
    int retainLast = keepOnlyCurrent ? 1 : 1 + random.nextInt(3);
    boolean dropRefs = keepOnlyCurrent || random.nextBoolean();
    Crash crash =
        keepOnlyCurrent ? Crash.NONE : Crash.values()[random.nextInt(Crash.values().length)];
    int crashAt = 1 + random.nextInt(8);

    AtomicInteger deletes = new AtomicInteger();
    FaultInjectingStore crashing =
        FaultInjectingStore.crashingAtFirstDeleteOf(
            p -> {
              String name = p.substring(p.lastIndexOf('/') + 1);
              return switch (crash) {
                case NONE -> false;
                case BEFORE_MANIFESTS ->
                    p.contains("/metadata/") && name.endsWith(".avro") && !name.startsWith("snap-");
                case BEFORE_MANIFEST_LISTS -> name.startsWith("snap-");
                case AT_RANDOM -> deletes.incrementAndGet() > crashAt;
              };
            });
    RetentionResult result = null;
    try {
      result =
          new RetentionRunner(
                  crashing,
                  Clock.fixed(Instant.ofEpochMilli(now), ZoneOffset.UTC),
                  new RetentionSettings(false, 7, Long.MAX_VALUE))
              .expire(
                  replica,
                  Optional.of(new RetentionPolicy(1, periodMs, dropRefs ? 0 : Long.MAX_VALUE)),
                  p -> p,
                  new ExpireOptions(
                      Optional.empty(),
                      Optional.of(periodMs),
                      Optional.of(retainLast),
                      Set.of(),
                      false));
    } catch (UncheckedIOException e) {
      assertThat(crashing.crashed()).as("only an injected crash stops an expiry: %s", e).isTrue();
    }
    assertReads(replica, recorded, source);
    if (result == null) {
      return false;
    }

    Table after = SourceTable.TABLES.load(replica);
    Set<Long> retained = new HashSet<>();
    after.snapshots().forEach(s -> retained.add(s.snapshotId()));
    Set<Long> protectedIds = protectedIds(before, now, periodMs, retainLast, dropRefs);
    assertThat(retained)
        .as("retained snapshots are exactly those the policy protects")
        .isEqualTo(protectedIds);
    Set<Long> unprotected = new HashSet<>();
    before.snapshots().forEach(s -> unprotected.add(s.snapshotId()));
    unprotected.removeAll(protectedIds);
    assertThat(result.expiredSnapshotIds())
        .as("expired snapshots")
        .containsExactlyInAnyOrderElementsOf(unprotected);
    for (Map.Entry<String, SnapshotRef> ref : before.refs().entrySet()) {
      boolean kept = ref.getKey().equals("main") || !dropRefs;
      assertThat(after.refs().containsKey(ref.getKey()))
          .as("ref %s kept", ref.getKey())
          .isEqualTo(kept);
    }

    Set<Path> reachable =
        ReplicaReads.reachableFiles(after).stream()
            .map(LocalObjectStore::toPath)
            .collect(Collectors.toSet());
    assertThat(result.deleted().all().stream().map(LocalObjectStore::toPath).toList())
        .as("deleted files a retained snapshot reaches")
        .doesNotContainAnyElementsOf(reachable);
    assertThat(filesOfSnapshots(replicaDir))
        .as("files no retained snapshot reaches")
        .isSubsetOf(reachable);
    return !result.expiredSnapshotIds().isEmpty() && !result.deleted().all().isEmpty();
  }

  /** What the spec's policy protects, computed here independently of the planner. */
  private static Set<Long> protectedIds(
      Table before, long now, long periodMs, int retainLast, boolean dropRefs) {
    Set<Long> ids = new HashSet<>();
    ids.add(before.currentSnapshot().snapshotId());
    for (Map.Entry<String, SnapshotRef> ref : before.refs().entrySet()) {
      if (!ref.getKey().equals("main") && dropRefs) {
        continue;
      }
      ids.add(ref.getValue().snapshotId());
      if (ref.getValue().isBranch()) {
        Long id = ref.getValue().snapshotId();
        for (int i = 0; id != null && before.snapshot(id) != null; i++) {
          var snapshot = before.snapshot(id);
          if (i >= retainLast && now - snapshot.timestampMillis() > periodMs) {
            break;
          }
          ids.add(id);
          id = snapshot.parentId();
        }
      }
    }
    before
        .snapshots()
        .forEach(
            s -> {
              if (now - s.timestampMillis() <= periodMs) {
                ids.add(s.snapshotId());
              }
            });
    return ids;
  }

  /** Manifest lists, manifests, data and delete files present in the replica's folder. */
  private static Set<Path> filesOfSnapshots(Path replicaDir) throws IOException {
    Set<Path> files = new HashSet<>();
    try (Stream<Path> walk = Files.walk(replicaDir)) {
      walk.filter(Files::isRegularFile)
          .filter(
              p ->
                  !p.startsWith(replicaDir.resolve("metadata"))
                      || p.getFileName().toString().endsWith(".avro"))
          .forEach(files::add);
    }
    return files;
  }

  /** Applies generated operations to a source table with the Iceberg library. */
  private static final class History {
    private final SourceTable source;
    private final Map<String, List<Record>> rowsByFile = new HashMap<>();
    private final Set<String> withDeletes = new HashSet<>();
    private final List<Long> staged = new ArrayList<>();
    private int tags;
    private int wapIds;
    private long nextId = 1;

    History(SourceTable source) {
      this.source = source;
    }

    /** The newest source snapshot's timestamp: the clocks of replication and expiry follow it. */
    long newest() {
      source.table.refresh();
      long newest = 0;
      for (var snapshot : source.table.snapshots()) {
        newest = Math.max(newest, snapshot.timestampMillis());
      }
      return newest;
    }

    /**
     * @param halfDeleted snapshots whose deletion an interrupted expiry left pending on the replica
     * @param expiredOnReplica snapshots the replica expired: a rollback, a tag or a cherry-pick
     *     picks among the half-deleted ones, else among these, when it can, as those are the ones
     *     replication must bring back whole
     */
    void apply(Op op, Set<Long> halfDeleted, Set<Long> expiredOnReplica)
        throws InterruptedException {
      Table table = source.table;
      table.refresh();
      switch (op.kind()) {
        case APPEND -> table.newAppend().appendFile(newFile(op.pick())).commit();
        case APPEND_TO_BRANCH -> {
          // a branch the replica dropped comes back with this append
          if (!table.refs().containsKey("b")) {
            table
                .manageSnapshots()
                .createBranch("b", table.currentSnapshot().snapshotId())
                .commit();
          }
          table.newAppend().appendFile(newFile(op.pick())).toBranch("b").commit();
        }
        case TAG -> {
          List<Long> ids = new ArrayList<>();
          table.snapshots().forEach(s -> ids.add(s.snapshotId()));
          table
              .manageSnapshots()
              .createTag("t" + tags++, pick(ids, op.pick(), halfDeleted, expiredOnReplica))
              .commit();
        }
        case DELETE_FILE ->
            liveFile(op.pick()).ifPresent(f -> table.newDelete().deleteFile(f).commit());
        case POSITION_DELETE ->
            liveFile(op.pick())
                .ifPresent(
                    f -> {
                      source.deletePositions(f, 0);
                      withDeletes.add(f.location());
                    });
        // Iceberg refuses to replace a file that has row-level deletes: compact the others
        case COMPACT ->
            liveFile(op.pick())
                .filter(f -> !withDeletes.contains(f.location()))
                .ifPresent(
                    f -> {
                      DataFile copy =
                          TableWrites.writeData(table, f.partition(), rowsByFile.get(f.location()));
                      rowsByFile.put(copy.location(), rowsByFile.get(f.location()));
                      table.newRewrite().deleteFile(f).addFile(copy).commit();
                    });
        case REWRITE_MANIFESTS -> table.rewriteManifests().rewriteIf(m -> true).commit();
        case ROLLBACK -> {
          List<Long> ancestors = new ArrayList<>(SnapshotUtil.currentAncestorIds(table));
          if (ancestors.size() > 1) {
            table
                .manageSnapshots()
                .rollbackTo(
                    pick(
                        ancestors.subList(1, ancestors.size()),
                        op.pick(),
                        halfDeleted,
                        expiredOnReplica))
                .commit();
          }
        }
        case STAGE -> {
          String wapId = "w" + wapIds++;
          table
              .newAppend()
              .appendFile(newFile(op.pick()))
              .set("wap.id", wapId)
              .stageOnly()
              .commit();
          table.refresh();
          for (var snapshot : table.snapshots()) {
            if (wapId.equals(snapshot.summary().get("wap.id"))) {
              staged.add(snapshot.snapshotId());
            }
          }
        }
        case CHERRY_PICK -> {
          if (!staged.isEmpty()) {
            long id = pick(staged, op.pick(), halfDeleted, expiredOnReplica);
            staged.remove(Long.valueOf(id));
            table.manageSnapshots().cherrypick(id).commit();
          }
        }
      }
      // distinct timestamps, so that an age cut never falls on a snapshot
      Thread.sleep(2);
    }

    /**
     * One of {@code ids}: a half-deleted one if any, else an expired one if any. Picked by position
     * in {@code ids}, which follows the history, never by id value: Iceberg draws ids at random.
     */
    private static long pick(
        List<Long> ids, int pick, Set<Long> halfDeleted, Set<Long> expiredOnReplica) {
      for (Set<Long> preferred : List.of(halfDeleted, expiredOnReplica)) {
        List<Long> from = ids.stream().filter(preferred::contains).toList();
        if (!from.isEmpty()) {
          return from.get(pick % from.size());
        }
      }
      return ids.get(pick % ids.size());
    }

    private DataFile newFile(int pick) {
      Table table = source.table;
      String category = "c" + (pick % 3);
      PartitionKey partition = new PartitionKey(table.spec(), table.schema());
      GenericRecord record = GenericRecord.create(table.schema());
      partition.partition(record.copy(Map.of("id", 0L, "category", category)));
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i <= pick % 3; i++) {
        rows.add(record.copy(Map.of("id", nextId++, "category", category)));
      }
      DataFile file = TableWrites.writeData(table, partition, rows);
      rowsByFile.put(file.location(), rows);
      return file;
    }

    private Optional<DataFile> liveFile(int pick) {
      Table table = source.table;
      if (table.currentSnapshot() == null) {
        return Optional.empty();
      }
      List<DataFile> files = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> files.add(t.file()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      // by their rows, as file names hold random UUIDs
      files.sort(
          java.util.Comparator.comparingLong(
              f -> (Long) rowsByFile.get(f.location()).get(0).getField("id")));
      return files.isEmpty() ? Optional.empty() : Optional.of(files.get(pick % files.size()));
    }
  }
}
