package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A check without the lease reads the replica's state while it lists the replica's metadata folder,
 * not after it. Read out of order, a commit made between the two reads must not be taken for a
 * replica changed behind the replicator's back: the check reads again in order.
 */
class ConcurrentCheckReadsTest {
  @TempDir Path dir;

  private final ExecutorService executor = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @Test
  void theStateIsReadWhileTheReplicaFolderIsListed() throws Exception {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    replicator(new LocalObjectStore()).replicateIfChanged(table.location, replica);
    StateWatchingStore target = new StateWatchingStore(replica);
    target.listingWaitsForState = true;

    TableHeads heads = replicator(target).read(table.location, replica);

    assertThat(target.stateReadDuringListing.get())
        .as("the state was opened while the folder was being listed")
        .isTrue();
    assertThat(target.listingStartedDuringStateRead.get())
        .as("the folder's listing started while the state was being read")
        .isTrue();
    assertThat(heads.inSync()).isTrue();
  }

  @Test
  void aCommitBetweenTheStateReadAndTheListingIsNotADivergedReplica() throws Exception {
    SourceTable table = SourceTable.create(dir.resolve("source"), 2);
    table.append("a", 3);
    String replica = dir.resolve("replica").toUri().toString();
    replicator(new LocalObjectStore()).replicateIfChanged(table.location, replica);
    table.append("b", 2);
    StateWatchingStore target = new StateWatchingStore(replica);
    target.listingWaitsForState = true;
    // once the state is read, another replicator commits the new version before the listing
    target.beforeFirstListing =
        () -> replicator(new LocalObjectStore()).replicateIfChanged(table.location, replica);

    TableHeads heads = replicator(target).read(table.location, replica);

    assertThat(target.stateReadDuringListing.get()).isTrue();
    assertThat(target.listingStartedDuringStateRead.get()).isTrue();
    assertThat(heads.inSync()).isTrue();
    assertThat(heads.replica().orElseThrow().version()).isEqualTo(2);
    table.table.refresh();
    Table read = SourceTable.TABLES.load(replica);
    long head = table.table.currentSnapshot().snapshotId();
    assertThat(SourceTable.rows(read, head)).isEqualTo(SourceTable.rows(table.table, head));
  }

  private TableReplicator replicator(ObjectStore target) {
    return TableReplicator.builder(
            new LocalObjectStore(), target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build();
  }

  /**
   * A local store whose first listing of the replica's metadata folder waits (at most 10 s) until
   * the replica's state file has been read, and whose first read of the state waits until the
   * listing has started, recording whether each happened.
   */
  private static final class StateWatchingStore extends ForwardingObjectStore {
    final AtomicBoolean stateReadDuringListing = new AtomicBoolean();
    final AtomicBoolean listingStartedDuringStateRead = new AtomicBoolean();
    private final CountDownLatch stateRead = new CountDownLatch(1);
    private final CountDownLatch listingStarted = new CountDownLatch(1);
    private final AtomicBoolean stateOpened = new AtomicBoolean();
    private final String stateFile;
    private final AtomicBoolean listed = new AtomicBoolean();
    volatile boolean listingWaitsForState;
    volatile Runnable beforeFirstListing = () -> {};

    StateWatchingStore(String replica) {
      super(new LocalObjectStore());
      this.stateFile = ReplicaLayout.stateFile(replica);
    }

    @Override
    public InputStream open(String path) throws IOException {
      if (path.equals(stateFile)) {
        if (listingWaitsForState && stateOpened.compareAndSet(false, true)) {
          // each side waits for the other to start: reads one after the other, in either order,
          // leave one of them waiting in vain
          try {
            listingStartedDuringStateRead.set(listingStarted.await(10, TimeUnit.SECONDS));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
          }
        }
        byte[] content;
        try (InputStream in = super.open(path)) {
          content = in.readAllBytes();
        }
        stateRead.countDown();
        return new ByteArrayInputStream(content);
      }
      return super.open(path);
    }

    @Override
    public List<String> list(String folder) throws IOException {
      if (listingWaitsForState && listed.compareAndSet(false, true)) {
        listingStarted.countDown();
        try {
          stateReadDuringListing.set(stateRead.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
        beforeFirstListing.run();
      }
      return super.list(folder);
    }
  }
}
