package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.RecordingStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In a commit that copies its data file as is, the manifest and the manifest list are rewritten
 * while the data file is still being copied, and written only after it: the copy's time is no
 * longer followed by two reads of the source.
 */
class RenderAheadTest {
  @TempDir Path dir;

  private final ExecutorService executor = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @Test
  void theManifestAndItsListAreReadWhileTheDataFileIsCopiedAndWrittenAfterIt() throws Exception {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    replicator(new LocalObjectStore(), new LocalObjectStore())
        .replicateIfChanged(table.location, replica);
    DataFile added = table.append("b", 2);
    table.table.refresh();
    Snapshot head = table.table.currentSnapshot();
    String manifest =
        head.dataManifests(table.table.io()).stream()
            .filter(m -> m.snapshotId() == head.snapshotId())
            .findFirst()
            .orElseThrow()
            .path();
    String list = head.manifestListLocation();
    RecordingStore source = new RecordingStore();
    BlockingTarget target =
        new BlockingTarget(
            added.location(), () -> opens(source, manifest) >= 2 && opens(source, list) >= 2);

    ReplicationResult result =
        replicator(source, target).replicateIfChanged(table.location, replica);

    assertThat(result.summary().versionsApplied()).isEqualTo(1);
    assertThat(target.readDuringCopy.get())
        .as("the manifest and its list read again (after planning) while the data file was copied")
        .isTrue();
    List<String> writes = List.copyOf(target.writes);
    String replicaData =
        writes.stream().filter(p -> p.endsWith(".parquet")).findFirst().orElseThrow();
    String replicaManifest =
        writes.stream().filter(p -> p.endsWith(fileName(manifest))).findFirst().orElseThrow();
    String replicaList =
        writes.stream().filter(p -> p.endsWith(fileName(list))).findFirst().orElseThrow();
    assertThat(writes.indexOf(replicaData)).isLessThan(writes.indexOf(replicaManifest));
    assertThat(writes.indexOf(replicaManifest)).isLessThan(writes.indexOf(replicaList));
    Table read = SourceTable.TABLES.load(replica);
    assertThat(SourceTable.rows(read, head.snapshotId()))
        .isEqualTo(SourceTable.rows(table.table, head.snapshotId()));
  }

  /** The opens of the file {@code path} names that returned, however it is spelled. */
  private static long opens(RecordingStore store, String path) {
    return store.ended("open").stream()
        .filter(call -> call.outcome() == RecordingStore.Outcome.DONE)
        .filter(call -> fileName(call.path()).equals(fileName(path)))
        .count();
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private TableReplicator replicator(ObjectStore source, ObjectStore target) {
    return TableReplicator.builder(source, target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build();
  }

  /**
   * A local store that records its writes in order, and holds the copy of one data file until
   * {@code awaited} holds (at most 10 s), recording whether it did.
   */
  private static final class BlockingTarget extends ForwardingObjectStore {
    final List<String> writes = Collections.synchronizedList(new ArrayList<>());
    final AtomicBoolean readDuringCopy = new AtomicBoolean();
    private final String dataFile;
    private final java.util.function.BooleanSupplier awaited;

    BlockingTarget(String dataFile, java.util.function.BooleanSupplier awaited) {
      super(new LocalObjectStore());
      this.dataFile = fileName(dataFile);
      this.awaited = awaited;
    }

    @Override
    public long write(String path, Writer writer) throws IOException {
      long length = super.write(path, writer);
      writes.add(path);
      return length;
    }

    @Override
    public OptionalLong copyFrom(
        ObjectStore source, String sourcePath, String targetPath, long recordedLength)
        throws IOException {
      if (fileName(sourcePath).equals(dataFile)) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!awaited.getAsBoolean() && System.nanoTime() < until) {
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
          }
        }
        readDuringCopy.set(awaited.getAsBoolean());
      }
      OptionalLong copied = super.copyFrom(source, sourcePath, targetPath, recordedLength);
      writes.add(targetPath);
      return copied;
    }
  }
}
