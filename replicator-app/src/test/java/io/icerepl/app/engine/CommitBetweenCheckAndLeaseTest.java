package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run checks without the lease whether the replica holds the source head, then takes the lease.
 * When the replica's state records the same commit as at the check, nothing was committed since and
 * the run does not read the replica's head again; when another replicator committed in between, it
 * does, and applies what is left on top of that commit.
 */
class CommitBetweenCheckAndLeaseTest {
  @TempDir Path dir;

  private final ExecutorService executor = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @Test
  void aRunWithNoCommitSinceItsCheckListsTheReplicaOnce() throws IOException {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    ListingStore target = new ListingStore(() -> {});
    replicator(target).replicateIfChanged(table.location, replica);
    table.append("b", 2);
    target.listings.set(0);

    ReplicationResult result = replicator(target).replicateIfChanged(table.location, replica);

    assertThat(result.summary().versionsApplied()).isEqualTo(1);
    assertThat(target.listings.get()).isEqualTo(1);
    assertSameRows(table, replica);
  }

  @Test
  void aCommitBetweenTheCheckAndTheLeaseIsReadUnderTheLease() throws IOException {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    replicator(new LocalObjectStore()).replicateIfChanged(table.location, replica);
    table.append("b", 2);
    table.append("c", 1);
    // another replicator commits both new versions after this run's check, before its lease
    ListingStore target =
        new ListingStore(
            () -> replicator(new LocalObjectStore()).replicateIfChanged(table.location, replica));
    target.listings.set(0);

    ReplicationResult result = replicator(target).replicateIfChanged(table.location, replica);

    assertThat(target.listings.get()).isEqualTo(2);
    assertThat(result.summary().versionsApplied()).isZero();
    assertThat(result.heads().inSync()).isTrue();
    assertSameRows(table, replica);
  }

  private TableReplicator replicator(ObjectStore target) {
    return TableReplicator.builder(
            new LocalObjectStore(), target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build();
  }

  private static void assertSameRows(SourceTable table, String replica) {
    table.table.refresh();
    Table read = SourceTable.TABLES.load(replica);
    List<Snapshot> snapshots = new ArrayList<>();
    table.table.snapshots().forEach(snapshots::add);
    assertThat(snapshots).isNotEmpty();
    for (Snapshot snapshot : snapshots) {
      assertThat(SourceTable.rows(read, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(table.table, snapshot.snapshotId()));
    }
  }

  /** A local store that counts listings and runs {@code beforeLock} when a lease is taken. */
  private static final class ListingStore extends ForwardingObjectStore {
    final AtomicInteger listings = new AtomicInteger();
    private final Runnable beforeLock;

    ListingStore(Runnable beforeLock) {
      super(new LocalObjectStore());
      this.beforeLock = beforeLock;
    }

    @Override
    public List<String> list(String folder) throws IOException {
      listings.incrementAndGet();
      return super.list(folder);
    }

    @Override
    public List<Entry> listEntries(String folder) throws IOException {
      listings.incrementAndGet();
      return super.listEntries(folder);
    }

    @Override
    public Lock lock(String location) throws IOException {
      beforeLock.run();
      return super.lock(location);
    }
  }
}
