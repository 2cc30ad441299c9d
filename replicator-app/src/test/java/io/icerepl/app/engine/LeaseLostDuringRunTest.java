package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.retention.RetentionSettings;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.IdAppends;
import io.icerepl.fixtures.ShiftableClock;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.merge.retention.ExpireOptions;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A run whose lease expired and was taken over while it copied (no renewal reached S3 in time) must
 * not touch the replica any more: it publishes nothing, writes no state and removes none of the
 * files it copied, since the run that holds the table now may publish the very same files.
 */
class LeaseLostDuringRunTest {
  // the test's writer is the table's only writer: no losing writer's file to wait out
  private static final ReplicationOptions ONLY_WRITER =
      new ReplicationOptions(
          java.util.List.of(),
          false,
          ReplicationOptions.defaults().maxMetadataBytes(),
          8,
          java.time.Duration.ZERO);

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final String REPLICA = "s3://replica/warehouse/ns/t";
  private static EmbeddedS3 s3;
  private static S3Endpoint endpoint;

  private final ShiftableClock leaseClock = new ShiftableClock();
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private S3Warehouse warehouse;
  private S3ObjectStore source;
  private S3ObjectStore firstRun;
  private S3ObjectStore secondRun;
  private Table table;

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
    IdAppends.appendEach(table, 2);
    S3StoreSettings settings = S3StoreSettings.defaults("source-reader");
    source = S3ObjectStore.create(endpoint, settings, S3Resilience.defaults());
    firstRun = S3ObjectStore.create(endpoint, leaseSettings("first-run"), S3Resilience.defaults());
    secondRun =
        S3ObjectStore.create(endpoint, leaseSettings("second-run"), S3Resilience.defaults());
  }

  @AfterEach
  void close() {
    executor.shutdownNow();
    source.close();
    firstRun.close();
    secondRun.close();
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

  private S3StoreSettings leaseSettings(String owner) {
    return S3StoreSettings.defaults(owner)
        .withLock(ReplicaLayout.DEFAULT_LOCK_PREFIX, owner, Duration.ofMinutes(2), leaseClock);
  }

  @Test
  void aRunWhoseLeaseWasTakenOverPublishesNothing() throws IOException {
    ManifestWrites hooked = new ManifestWrites(true, false);

    assertThatThrownBy(() -> replicate(hooked))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining(
            "Cannot commit replica version 1 of table "
                + REPLICA
                + ": its lease was lost to "
                + "second-run (this run's lease expired at ");

    assertThat(hooked.taken).isNotNull();
    // no metadata file, no version hint, no commit in the state (which records the source prefixes
    // before any file is copied): only the files the commit would have named
    assertThat(firstRun.list(REPLICA + "/metadata"))
        .isNotEmpty()
        .allMatch(LeaseLostDuringRunTest::uncommitted);
    assertThat(new ReplicaFiles(firstRun, Long.MAX_VALUE).state(REPLICA).lastCommit()).isNull();
    assertThat(stateBytes())
        .as("the state once the lease was lost")
        .isEqualTo(hooked.stateAtTakeover);
    assertThat(firstRun.list(REPLICA + "/data")).hasSize(2);
    hooked.taken.checkHeld("publish replica version 1");
    hooked.taken.close();
  }

  @Test
  void aFailedRunWhoseLeaseWasTakenOverRemovesNoneOfItsFiles() throws IOException {
    ManifestWrites hooked = new ManifestWrites(true, true);

    assertThatThrownBy(() -> replicate(hooked))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining(
            "Cannot remove the files of a failed commit of table "
                + REPLICA
                + ": its lease was lost to second-run")
        .satisfies(
            e ->
                assertThat(e.getCause().getSuppressed())
                    .singleElement()
                    .satisfies(s -> assertThat(s).hasMessageContaining("manifest write failed")));

    // the data files copied before the failure stay: the second run may already count on them
    // (how many were copied by then depends on how far planning got before the manifest failed)
    assertThat(hooked.copied).isNotEmpty();
    assertThat(firstRun.list(REPLICA + "/data"))
        .containsExactlyInAnyOrderElementsOf(
            hooked.copied.stream().map(p -> p.substring(p.lastIndexOf('/') + 1)).toList());
    assertThat(firstRun.list(REPLICA + "/metadata")).allMatch(LeaseLostDuringRunTest::uncommitted);
    assertThat(new ReplicaFiles(firstRun, Long.MAX_VALUE).state(REPLICA).lastCommit()).isNull();
    assertThat(stateBytes())
        .as("the state once the lease was lost")
        .isEqualTo(hooked.stateAtTakeover);
    hooked.taken.close();
  }

  @Test
  void aFailedRunThatStillHoldsItsLeaseRemovesWhatItCopied() {
    assertThatThrownBy(() -> replicate(new ManifestWrites(false, true)))
        .hasMessageContaining("manifest write failed");

    assertThat(list(REPLICA + "/data")).isEmpty();
  }

  @Test
  void anExpiryWhoseLeaseWasTakenOverPublishesAndDeletesNothing() throws IOException {
    replicate(firstRun);
    List<String> before = firstRun.list(REPLICA + "/metadata");
    AtomicBoolean done = new AtomicBoolean();
    ObjectStore.Lock[] taken = new ObjectStore.Lock[1];
    String[] stateAtTakeover = new String[1];
    // the second run takes the table over while the expiry reads the replica's manifests
    ObjectStore reading =
        new ForwardingObjectStore(firstRun) {
          @Override
          public InputStream open(String path) throws IOException {
            if (path.endsWith(".avro") && done.compareAndSet(false, true)) {
              leaseClock.advance(Duration.ofMinutes(3));
              taken[0] = secondRun.lock(REPLICA);
              stateAtTakeover[0] = stateBytes();
            }
            return super.open(path);
          }
        };
    ExpireOptions keepOne =
        new ExpireOptions(Optional.empty(), Optional.of(0L), Optional.of(1), Set.of(), false);

    assertThatThrownBy(
            () ->
                new RetentionRunner(reading, Clock.systemUTC(), RetentionSettings.defaults())
                    .expire(REPLICA, Optional.empty(), UnaryOperator.identity(), keepOne))
        .hasMessageContaining(
            "Cannot expire snapshots of table " + REPLICA + ": its lease was lost to second-run");

    assertThat(taken[0]).isNotNull();
    assertThat(firstRun.list(REPLICA + "/metadata")).isEqualTo(before);
    assertThat(stateBytes()).as("the state once the lease was lost").isEqualTo(stateAtTakeover[0]);
    taken[0].close();
  }

  /**
   * Taken over right after the expiry recorded its commit in the state: the publish that follows
   * checks the lease on its own (through {@code LeasedReplica}), so no version is published.
   */
  @Test
  void anExpiryTakenOverBetweenItsCommitRecordAndItsPublishPublishesNothing() throws IOException {
    replicate(firstRun);
    List<String> before = firstRun.list(REPLICA + "/metadata");
    AtomicLong stateWrites = new AtomicLong();
    ObjectStore.Lock[] taken = new ObjectStore.Lock[1];
    String[] stateAtTakeover = new String[1];
    ObjectStore recording =
        new ForwardingObjectStore(firstRun) {
          @Override
          public Optional<ObjectVersion> replaceIf(
              String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
            Optional<ObjectVersion> written = super.replaceIf(path, expected, content);
            // the first records the expired snapshots, the second the commit
            if (path.equals(ReplicaLayout.stateFile(REPLICA))
                && stateWrites.incrementAndGet() == 2) {
              leaseClock.advance(Duration.ofMinutes(3));
              taken[0] = secondRun.lock(REPLICA);
              stateAtTakeover[0] = stateBytes();
            }
            return written;
          }
        };
    ExpireOptions keepOne =
        new ExpireOptions(Optional.empty(), Optional.of(0L), Optional.of(1), Set.of(), false);

    assertThatThrownBy(
            () ->
                new RetentionRunner(recording, Clock.systemUTC(), RetentionSettings.defaults())
                    .expire(REPLICA, Optional.empty(), UnaryOperator.identity(), keepOne))
        .hasMessageContaining("its lease was lost to second-run")
        .hasMessageContaining("Cannot publish replica version ");

    assertThat(stateWrites).hasValue(2);
    assertThat(firstRun.list(REPLICA + "/metadata")).isEqualTo(before);
    assertThat(stateBytes()).as("the state once the lease was lost").isEqualTo(stateAtTakeover[0]);
    taken[0].close();
  }

  private void replicate(ObjectStore to) {
    TableReplicator.builder(source, to, executor, ONLY_WRITER)
        .clock(Clock.systemUTC())
        .build()
        .replicate(table.location(), REPLICA, Optional.empty());
  }

  /** The state file's content as the store holds it now, or a mark of its absence. */
  private String stateBytes() {
    try {
      return firstRun
          .readVersioned(ReplicaLayout.stateFile(REPLICA))
          .map(o -> new String(o.content(), java.nio.charset.StandardCharsets.UTF_8))
          .orElse("(no state)");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private List<String> list(String folder) {
    try {
      return firstRun.list(folder);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean isManifest(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return name.endsWith(".avro") && !name.startsWith("snap-");
  }

  /**
   * The first run's target: when it writes its first manifest (the data files it names are in place
   * by then), its lease may have expired and been taken over by the second run, and the write may
   * fail.
   */
  private final class ManifestWrites extends ForwardingObjectStore {
    private final boolean takeOver;
    private final boolean fail;
    private final AtomicBoolean done = new AtomicBoolean();
    volatile ObjectStore.Lock taken;
    volatile String stateAtTakeover;
    final java.util.Queue<String> copied = new java.util.concurrent.ConcurrentLinkedQueue<>();

    ManifestWrites(boolean takeOver, boolean fail) {
      super(firstRun);
      this.takeOver = takeOver;
      this.fail = fail;
    }

    @Override
    public long write(String path, Writer writer) throws IOException {
      if (isManifest(path) && takeOver && done.compareAndSet(false, true)) {
        leaseClock.advance(Duration.ofMinutes(3));
        taken = secondRun.lock(REPLICA);
        stateAtTakeover = stateBytes();
      }
      if (isManifest(path) && fail) {
        throw new IOException("manifest write failed: " + path);
      }
      return super.write(path, writer);
    }

    @Override
    public java.util.OptionalLong copyFrom(
        ObjectStore from, String sourcePath, String targetPath, long recordedLength)
        throws IOException {
      java.util.OptionalLong length = super.copyFrom(from, sourcePath, targetPath, recordedLength);
      copied.add(targetPath);
      return length;
    }
  }

  private static boolean uncommitted(String name) {
    return name.endsWith(".avro") || name.equals(".replicator-state.json");
  }
}
