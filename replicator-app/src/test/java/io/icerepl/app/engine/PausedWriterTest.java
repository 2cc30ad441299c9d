package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.fixtures.IdAppends;
import io.icerepl.fixtures.ShiftableClock;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.TableBusyException;
import io.icerepl.merge.state.ReplicaState;
import io.icerepl.merge.state.ReplicaStateParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A run paused (SIGSTOP, a debugger) after its lease check and before its state write, while its
 * lease expires and another run takes the table over and commits: when it resumes, the store
 * refuses its write, the state stays as the other run left it, and replication goes on. The pause
 * is a hook in the paused run's store, at the very write, so no timing decides the outcome.
 */
class PausedWriterTest {
  private static final ReplicationOptions ONLY_WRITER =
      new ReplicationOptions(
          List.of(), false, ReplicationOptions.defaults().maxMetadataBytes(), 8, Duration.ZERO);
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final String REPLICA = "s3://replica/warehouse/ns/t";
  private static EmbeddedS3 s3;
  private static S3Endpoint endpoint;

  private final ShiftableClock leaseClock = new ShiftableClock();
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private S3Warehouse warehouse;
  private S3ObjectStore source;
  private S3ObjectStore paused;
  private S3ObjectStore other;
  private Table table;
  private long nextId;

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    endpoint =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @BeforeEach
  void writeSourceTable() {
    s3.createBucket("source");
    s3.createBucket("replica");
    warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);
    table =
        warehouse.create(
            "ns", "t", SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    append();
    append();
    source =
        S3ObjectStore.create(
            endpoint, S3StoreSettings.defaults("source-reader"), S3Resilience.defaults());
    paused = S3ObjectStore.create(endpoint, leaseSettings("paused-run"), S3Resilience.defaults());
    other = S3ObjectStore.create(endpoint, leaseSettings("other-run"), S3Resilience.defaults());
  }

  @AfterEach
  void close() {
    executor.shutdownNow();
    source.close();
    paused.close();
    other.close();
    warehouse.close();
    try (var client = s3.client()) {
      for (String bucket : List.of("source", "replica")) {
        client
            .listObjectsV2Paginator(b -> b.bucket(bucket))
            .contents()
            .forEach(o -> client.deleteObject(b -> b.bucket(bucket).key(o.key())));
        client.deleteBucket(b -> b.bucket(bucket));
      }
    }
  }

  @Test
  void aRunPausedBeforeItsCommitRecordCannotWriteOnceAnotherRunTookTheTableOver()
      throws IOException {
    replicate(other);
    long before = state().lastCommit().version();
    append();
    byte[][] winnersState = new byte[1][];
    PausedAtCommitRecord pausing =
        new PausedAtCommitRecord(
            before,
            () -> {
              // the paused run's lease expires, and the other run takes the table and commits
              leaseClock.advance(Duration.ofMinutes(3));
              replicate(other);
              winnersState[0] = stateBytes();
            });

    Throwable refused = catchThrowable(() -> replicate(pausing));

    assertThat(refused)
        .isInstanceOf(TableReplicationException.class)
        .satisfies(e -> assertThat(causes(e)).hasAtLeastOneElementOfType(TableBusyException.class))
        .satisfies(
            e -> assertThat(causes(e)).noneMatch(DivergedReplicaException.class::isInstance));
    assertThat(pausing.resumed).isTrue();
    // Both runs read the same state; the later holding of the lease carries the larger epoch, and
    // the refusal names it beside the paused run's own.
    long winnersEpoch = ReplicaStateParser.readFenced(winnersState[0], "winner").fencingEpoch();
    Matcher named =
        Pattern.compile(
                "replaced by the run of fencing epoch (\\d+) since this run \\(fencing epoch"
                    + " (\\d+)\\)")
            .matcher(
                causes(refused).stream()
                    .filter(TableBusyException.class::isInstance)
                    .findFirst()
                    .orElseThrow()
                    .getMessage());
    assertThat(named.find()).as("the refusal names both epochs").isTrue();
    assertThat(Long.parseLong(named.group(1))).isEqualTo(winnersEpoch);
    assertThat(Long.parseLong(named.group(2))).isLessThan(winnersEpoch);
    assertThat(ReplicaStateParser.fromJson(winnersState[0], "winner").lastCommit().version())
        .isEqualTo(before + 1);
    assertThat(new String(stateBytes(), java.nio.charset.StandardCharsets.UTF_8))
        .as("the state as the winning run left it")
        .isEqualTo(new String(winnersState[0], java.nio.charset.StandardCharsets.UTF_8));

    append();
    replicate(other);
    assertReplicaReadsAsTheSource();
  }

  /**
   * Paused after its commit record and before it creates the version: the other run takes over,
   * records the same version and, just before it creates it, the paused run resumes and creates it
   * first. The other run finds the version the state recorded before it, published late: the state
   * records that commit again, the other run stops with the table busy (not diverged), and the next
   * run replicates on from that version.
   */
  @Test
  void aVersionAPausedRunPublishesLateIsKeptAndReplicationGoesOn() throws Exception {
    replicate(other);
    long next = state().lastCommit().version() + 1;
    append();
    String file = ReplicaLayout.metadataFile(REPLICA, next);
    java.util.concurrent.CountDownLatch pausedAtCreate = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch created = new java.util.concurrent.CountDownLatch(1);
    ObjectStore pausing =
        new AtCreate(
            paused,
            file,
            () -> {
              pausedAtCreate.countDown();
              await(resume);
            },
            created::countDown);
    ObjectStore overtaken =
        new AtCreate(
            other,
            file,
            () -> {
              resume.countDown();
              await(created);
            },
            () -> {});
    ExecutorService pausedProcess = Executors.newSingleThreadExecutor();
    try {
      java.util.concurrent.Future<?> pausedRun = pausedProcess.submit(() -> replicate(pausing));
      await(pausedAtCreate);
      leaseClock.advance(Duration.ofMinutes(3));

      assertThatThrownBy(() -> replicate(overtaken))
          .isInstanceOf(TableReplicationException.class)
          .satisfies(
              e -> assertThat(causes(e)).hasAtLeastOneElementOfType(TableBusyException.class))
          .satisfies(
              e -> assertThat(causes(e)).noneMatch(DivergedReplicaException.class::isInstance));
      try {
        pausedRun.get(60, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(causes(e)).noneMatch(DivergedReplicaException.class::isInstance);
      }
    } finally {
      pausedProcess.shutdownNow();
    }

    assertThat(state().lastCommit().version()).isEqualTo(next);
    append();
    replicate(other);
    assertReplicaReadsAsTheSource();
  }

  /**
   * A run whose copy fails (its manifest list cannot be written) is paused after the lease check of
   * its cleanup, while its lease expires and another run copies the same files (copies are
   * deterministic: same source file, same replica path) and publishes a version naming them. When
   * the paused run resumes, its cleanup finds the state is no longer its own and deletes nothing:
   * the other run's version reads back whole, its rows the source's.
   */
  @Test
  void aPausedRunsFailedCommitCleanupKeepsWhatTheRunThatTookOverPublished() throws IOException {
    replicate(other);
    long before = state().lastCommit().version();
    append();
    PausedInCleanup pausing =
        new PausedInCleanup(
            () -> {
              leaseClock.advance(Duration.ofMinutes(3));
              replicate(other);
            });

    Throwable failed = org.assertj.core.api.Assertions.catchThrowable(() -> replicate(pausing));

    assertThat(pausing.resumed).as("paused in its cleanup").isTrue();
    assertThat(state().lastCommit().version()).isEqualTo(before + 1);
    assertReplicaReadsAsTheSource();
    assertThat(failed)
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining("files this run copied are kept");
    assertThat(causes(failed)).hasAtLeastOneElementOfType(TableBusyException.class);
    append();
    replicate(other);
    assertReplicaReadsAsTheSource();
  }

  /**
   * The paused run's store: its write of a manifest list fails, and the first lease check after
   * that (the cleanup's, before it deletes anything) passes, then lets {@code meanwhile} run before
   * the run goes on, as a process stopped right after the check would.
   */
  private final class PausedInCleanup extends ForwardingObjectStore {
    private final Runnable meanwhile;
    private final AtomicBoolean failed = new AtomicBoolean();
    private final AtomicBoolean paused = new AtomicBoolean();
    volatile boolean resumed;

    PausedInCleanup(Runnable meanwhile) {
      super(PausedWriterTest.this.paused);
      this.meanwhile = meanwhile;
    }

    @Override
    public long write(String path, Writer writer) throws IOException {
      if (path.contains("/metadata/snap-") && failed.compareAndSet(false, true)) {
        throw new IOException("Connection reset writing " + path);
      }
      return super.write(path, writer);
    }

    @Override
    public Lock lock(String location) throws IOException {
      Lock lease = super.lock(location);
      return new Lock() {
        @Override
        public void checkHeld(String action) throws IOException {
          lease.checkHeld(action);
          if (failed.get() && paused.compareAndSet(false, true)) {
            meanwhile.run();
            resumed = true;
          }
        }

        @Override
        public void close() throws IOException {
          lease.close();
        }
      };
    }
  }

  private static void await(java.util.concurrent.CountDownLatch latch) {
    try {
      assertThat(latch.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("reached").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A store that runs {@code before} and {@code after} around the one create of {@code file}. */
  private static final class AtCreate extends ForwardingObjectStore {
    private final String file;
    private final Runnable before;
    private final Runnable after;
    private final AtomicBoolean done = new AtomicBoolean();

    AtCreate(ObjectStore delegate, String file, Runnable before, Runnable after) {
      super(delegate);
      this.file = file;
      this.before = before;
      this.after = after;
    }

    @Override
    public boolean createIfAbsent(String path, byte[] content) throws IOException {
      boolean hooked = path.equals(file) && done.compareAndSet(false, true);
      if (hooked) {
        before.run();
      }
      try {
        return super.createIfAbsent(path, content);
      } finally {
        if (hooked) {
          after.run();
        }
      }
    }

    @Override
    public boolean createIfAbsent(String path, Writer writer) throws IOException {
      boolean hooked = path.equals(file) && done.compareAndSet(false, true);
      if (hooked) {
        before.run();
      }
      try {
        return super.createIfAbsent(path, writer);
      } finally {
        if (hooked) {
          after.run();
        }
      }
    }
  }

  private void replicate(ObjectStore to) {
    TableReplicator.builder(source, to, executor, ONLY_WRITER)
        .clock(Clock.systemUTC())
        .build()
        .replicate(table.location(), REPLICA, Optional.empty());
  }

  private void append() {
    IdAppends.append(table, nextId++);
  }

  private S3StoreSettings leaseSettings(String owner) {
    return S3StoreSettings.defaults(owner)
        .withLock(ReplicaLayout.DEFAULT_LOCK_PREFIX, owner, Duration.ofMinutes(2), leaseClock);
  }

  private ReplicaState state() {
    return ReplicaStateParser.fromJson(stateBytes(), "state");
  }

  private byte[] stateBytes() {
    try (InputStream in = other.open(ReplicaLayout.stateFile(REPLICA))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void assertReplicaReadsAsTheSource() {
    table.refresh();
    try (S3FileIO io = new S3FileIO()) {
      io.initialize(EmbeddedS3FileIO.properties(s3));
      String hint;
      try (InputStream in = other.open(ReplicaLayout.versionHintFile(REPLICA))) {
        hint = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
      }
      Table replica =
          new BaseTable(
              new StaticTableOperations(
                  ReplicaLayout.metadataFile(REPLICA, Long.parseLong(hint)), io),
              "replica");
      assertThat(replica.currentSnapshot().snapshotId())
          .isEqualTo(table.currentSnapshot().snapshotId());
      assertThat(SourceTable.rows(replica, replica.currentSnapshot().snapshotId()))
          .hasSize((int) nextId)
          .isEqualTo(SourceTable.rows(table, table.currentSnapshot().snapshotId()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> chain = new java.util.ArrayList<>();
    for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  /**
   * The paused run's store: its write of the state recording its commit (the one after {@code
   * before}) stops before it reaches S3, lets {@code meanwhile} run, then goes on as the resumed
   * process's would.
   */
  private final class PausedAtCommitRecord extends ForwardingObjectStore {
    private final long before;
    private final Runnable meanwhile;
    private final AtomicBoolean paused = new AtomicBoolean();
    volatile boolean resumed;

    PausedAtCommitRecord(long before, Runnable meanwhile) {
      super(PausedWriterTest.this.paused);
      this.before = before;
      this.meanwhile = meanwhile;
    }

    private void pauseAt(String path, byte[] content) {
      if (!path.equals(ReplicaLayout.stateFile(REPLICA))) {
        return;
      }
      ReplicaState.LastCommit commit = ReplicaStateParser.fromJson(content, path).lastCommit();
      if (commit != null && commit.version() > before && paused.compareAndSet(false, true)) {
        meanwhile.run();
        resumed = true;
      }
    }

    @Override
    public long write(String path, Writer writer) throws IOException {
      ByteArrayOutputStream content = new ByteArrayOutputStream();
      writer.writeTo(content);
      pauseAt(path, content.toByteArray());
      return super.write(path, out -> content.writeTo(out));
    }

    @Override
    public Optional<ObjectVersion> replaceIf(
        String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
      pauseAt(path, content);
      return super.replaceIf(path, expected, content);
    }
  }
}
