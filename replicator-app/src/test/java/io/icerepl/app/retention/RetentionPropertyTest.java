package io.icerepl.app.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.demo.TableWrites;
import io.icerepl.app.replicate.ReplicationOptions;
import io.icerepl.app.replicate.SourceTable;
import io.icerepl.app.replicate.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.RetentionPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Over random histories — appends on main and on a branch, tags, file deletes, position deletes,
 * files rewritten by compaction, manifests rewritten and shared — an expiry of the replica never
 * removes a snapshot its policy protects, never deletes a file a retained snapshot reaches, and
 * leaves every retained snapshot reading what it read before.
 */
class RetentionPropertyTest {
  private static final int HISTORIES = 12;

  enum Kind { APPEND, APPEND_TO_BRANCH, CREATE_BRANCH, TAG, DELETE_FILE, POSITION_DELETE, COMPACT, REWRITE_MANIFESTS }

  record Op(Kind kind, int pick) {}

  /** One random history and policy per seed; a failure names its seed, which replays it exactly. */
  static LongStream seeds() {
    return LongStream.range(20261129L, 20261129L + HISTORIES);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void expiryKeepsWhatThePolicyProtectsAndEveryFileARetainedSnapshotReads(long seed, @TempDir Path dir)
      throws Exception {
    Random random = new Random(seed);
    List<Op> ops = new ArrayList<>();
    for (int i = 0, n = 3 + random.nextInt(10); i < n; i++) {
      ops.add(new Op(Kind.values()[random.nextInt(Kind.values().length)], random.nextInt(100)));
    }
    long[] periods = {0L, 40L, 150L, 10L * 24 * 3600 * 1000};
    long periodMs = periods[random.nextInt(periods.length)];
    int retainLast = 1 + random.nextInt(3);
    boolean dropRefs = random.nextBoolean();

    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.table.updateProperties().set("commit.manifest.min-count-to-merge", "3").commit();
    History history = new History(source);
    history.apply(new Op(Kind.APPEND, 0));
    for (Op op : ops) {
      history.apply(op);
      Thread.sleep(2);
    }

    String replica = dir.resolve("replica").toUri().toString();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      LocalObjectStore store = new LocalObjectStore();
      new TableReplicator(store, store, Clock.systemUTC(), executor, ReplicationOptions.defaults())
          .replicate(source.location, replica, Optional.empty());
    } finally {
      executor.shutdownNow();
    }
    Table before = SourceTable.TABLES.load(replica);
    Map<Long, List<String>> rowsBefore = new HashMap<>();
    before.snapshots().forEach(s -> rowsBefore.put(s.snapshotId(), SourceTable.rows(before, s.snapshotId())));
    Map<String, SnapshotRef> refsBefore = new LinkedHashMap<>(before.refs());

    long now = System.currentTimeMillis();
    Clock clock = Clock.fixed(java.time.Instant.ofEpochMilli(now), java.time.ZoneOffset.UTC);
    long maxRefAge = dropRefs ? 0 : Long.MAX_VALUE;
    RetentionResult result =
        new RetentionRunner(new LocalObjectStore(), clock, new RetentionSettings(false, 7, Long.MAX_VALUE))
            .expire(
                replica,
                Optional.of(new RetentionPolicy(1, periodMs, maxRefAge)),
                p -> p,
                new ExpireOptions(Optional.empty(), Optional.of(periodMs), Optional.of(retainLast), Set.of(), false));

    Table after = SourceTable.TABLES.load(replica);
    Set<Long> retained = new HashSet<>();
    after.snapshots().forEach(s -> retained.add(s.snapshotId()));

    // what the policy protects, computed here from the spec, independently of the planner
    Set<Long> protectedIds = new HashSet<>();
    protectedIds.add(before.currentSnapshot().snapshotId());
    for (Map.Entry<String, SnapshotRef> ref : refsBefore.entrySet()) {
      boolean kept = ref.getKey().equals("main") || !dropRefs;
      if (!kept) {
        assertThat(after.refs()).doesNotContainKey(ref.getKey());
        continue;
      }
      assertThat(after.refs()).containsKey(ref.getKey());
      protectedIds.add(ref.getValue().snapshotId());
      if (ref.getValue().isBranch()) {
        Long id = ref.getValue().snapshotId();
        for (int i = 0; id != null; i++) {
          var snapshot = before.snapshot(id);
          if (i >= retainLast && now - snapshot.timestampMillis() > periodMs) {
            break;
          }
          protectedIds.add(id);
          id = snapshot.parentId();
        }
      }
    }
    before.snapshots().forEach(s -> {
      if (now - s.timestampMillis() <= periodMs) {
        protectedIds.add(s.snapshotId());
      }
    });
    assertThat(retained).as("retained snapshots").containsAll(protectedIds);
    assertThat(result.expiredSnapshotIds()).doesNotContainAnyElementsOf(retained);

    Set<String> reachable = reachableFiles(after);
    assertThat(result.deleted().all()).as("deleted files a retained snapshot reaches").doesNotContainAnyElementsOf(reachable);
    for (String file : reachable) {
      assertThat(Files.exists(LocalObjectStore.toPath(file))).as("file %s of a retained snapshot", file).isTrue();
    }
    for (long id : retained) {
      assertThat(SourceTable.rows(after, id)).as("rows of retained snapshot %s", id).isEqualTo(rowsBefore.get(id));
    }
  }

  /** Every file a snapshot of the table reaches: manifest lists, manifests and live entries' files. */
  private static Set<String> reachableFiles(Table table) throws IOException {
    Set<String> files = new HashSet<>();
    for (var snapshot : table.snapshots()) {
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        files.add(manifest.path());
        if (manifest.content() == ManifestContent.DATA) {
          try (var reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
            reader.forEach(f -> files.add(f.location()));
          }
        } else {
          try (var reader = ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
            reader.forEach(f -> files.add(f.location()));
          }
        }
      }
    }
    return files;
  }

  /** Applies generated operations to a source table with the Iceberg library. */
  private static final class History {
    private final SourceTable source;
    private final Map<String, List<Record>> rowsByFile = new HashMap<>();
    private final Set<String> withDeletes = new HashSet<>();
    private boolean branch;
    private int tags;
    private long nextId = 1;

    History(SourceTable source) {
      this.source = source;
    }

    void apply(Op op) {
      Table table = source.table;
      table.refresh();
      switch (op.kind()) {
        case APPEND -> table.newAppend().appendFile(newFile(op.pick())).commit();
        case APPEND_TO_BRANCH -> {
          if (branch) {
            table.newAppend().appendFile(newFile(op.pick())).toBranch("b").commit();
          }
        }
        case CREATE_BRANCH -> {
          if (!branch) {
            table.manageSnapshots().createBranch("b", table.currentSnapshot().snapshotId()).commit();
            branch = true;
          }
        }
        case TAG -> {
          List<Long> ids = new ArrayList<>();
          table.snapshots().forEach(s -> ids.add(s.snapshotId()));
          table.manageSnapshots().createTag("t" + tags++, ids.get(op.pick() % ids.size())).commit();
        }
        case DELETE_FILE -> liveFile(op.pick()).ifPresent(f -> table.newDelete().deleteFile(f).commit());
        case POSITION_DELETE -> liveFile(op.pick()).ifPresent(f -> {
          source.deletePositions(f, 0);
          withDeletes.add(f.location());
        });
        // Iceberg refuses to replace a file that has row-level deletes: compact the others
        case COMPACT -> liveFile(op.pick()).filter(f -> !withDeletes.contains(f.location())).ifPresent(f -> {
          DataFile copy = TableWrites.writeData(table, f.partition(), rowsByFile.get(f.location()));
          rowsByFile.put(copy.location(), rowsByFile.get(f.location()));
          table.newRewrite().deleteFile(f).addFile(copy).commit();
        });
        case REWRITE_MANIFESTS -> table.rewriteManifests().rewriteIf(m -> true).commit();
      }
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
      files.sort(java.util.Comparator.comparing(DataFile::location));
      return files.isEmpty() ? Optional.empty() : Optional.of(files.get(pick % files.size()));
    }
  }
}
