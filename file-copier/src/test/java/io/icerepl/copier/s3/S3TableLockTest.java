package io.icerepl.copier.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.TableBusyException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class S3TableLockTest {
  private static final String BUCKET = "lock-test";
  private static final String TABLE = "s3://" + BUCKET + "/warehouse/db/orders";
  private static EmbeddedS3 s3;
  private static S3TestClients clients;

  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  private final S3ObjectStore first = store("first-run");
  private final S3ObjectStore second = store("second-run");

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    s3.createBucket(BUCKET);
    clients = new S3TestClients(s3, 64L * 1024 * 1024);
  }

  @AfterAll
  static void stopS3() {
    clients.close();
    s3.close();
  }

  private S3ObjectStore store(String owner) {
    S3StoreSettings settings =
        S3StoreSettings.defaults(owner)
            .withLock("replicator/locks", owner, Duration.ofMinutes(10), clock);
    return new S3ObjectStore(
        clients.client, clients.asyncClient, settings, S3Resilience.defaults());
  }

  @Test
  void aTableLockIsExclusiveUntilClosed() throws IOException {
    try (ObjectStore.Lock held = first.lock(TABLE)) {
      assertThatThrownBy(() -> second.lock(TABLE))
          .isInstanceOf(ConflictException.class)
          .hasMessage(
              "Cannot lock table " + TABLE + ": locked by first-run until 2025-01-01T00:10:00Z");
      // The same table spelled differently is the same lock.
      assertThatThrownBy(() -> second.lock("s3a://" + BUCKET + "/warehouse/db/orders/"))
          .isInstanceOf(ConflictException.class);
      second.lock(TABLE + "_other").close();
    }
    assertThat(first.length(first.leasePath(TABLE))).isEmpty();
    second.lock(TABLE).close();
  }

  @Test
  void aLeaseWhoseCreateAnswerWasLostIsStillHeldByItsCreator() throws IOException {
    // the lease is written, its answer replaced by 503; the retry gets 412 and reads its own token
    clients.throttle("PutObject", 1);
    try (ObjectStore.Lock held = first.lock(TABLE)) {
      assertThatThrownBy(() -> second.lock(TABLE)).isInstanceOf(ConflictException.class);
    } finally {
      clients.reset();
    }
    assertThat(first.length(first.leasePath(TABLE))).isEmpty();
  }

  @Test
  void anExpiredLeaseIsTakenOverAndItsOldHolderLeavesItAlone() throws IOException {
    ObjectStore.Lock stale = first.lock(TABLE);
    clock.advance(Duration.ofMinutes(10).plusMillis(1));
    try (ObjectStore.Lock taken = second.lock(TABLE)) {
      stale.close();
      assertThat(read(first.leasePath(TABLE))).contains("\"owner\":\"second-run\"");
      assertThatThrownBy(() -> first.lock(TABLE))
          .isInstanceOf(ConflictException.class)
          .hasMessageContaining("locked by second-run");
    }
    assertThat(first.length(first.leasePath(TABLE))).isEmpty();
  }

  @Test
  void theLeaseLivesOutsideTheTableUnderTheLockPrefix() throws IOException {
    String lease = first.leasePath(TABLE);
    assertThat(lease).startsWith("s3://" + BUCKET + "/replicator/locks/").doesNotStartWith(TABLE);
    try (ObjectStore.Lock held = first.lock(TABLE)) {
      assertThat(read(lease))
          .startsWith("{\"owner\":\"first-run\",\"token\":\"")
          .endsWith(
              "\",\"expires-at-ms\":"
                  + (clock.millis() + 600_000)
                  + ",\"epoch\":1,\"lease-version\":1}");
      assertThat(first.list(TABLE)).isEmpty();
    }
  }

  /** A lease as the releases before lease versions wrote it is one of version 1. */
  @Test
  void anExpiredLeaseAnEarlierReleaseWroteIsTakenOver() throws IOException {
    String lease = first.leasePath(TABLE);
    putLease(
        lease,
        "{\"owner\":\"earlier-release\",\"token\":\"t\",\"expires-at-ms\":"
            + (clock.millis() - 1)
            + "}");

    try (ObjectStore.Lock taken = second.lock(TABLE)) {
      assertThat(read(lease)).contains("\"owner\":\"second-run\"").contains("\"lease-version\":1");
      assertThat(taken.epoch()).as("one more than the record's absent epoch").isEqualTo(1);
    }
  }

  /**
   * A take-over numbers its holding one above the expired one, raised epoch included, so the later
   * of two holdings carries the larger epoch; the former holder can no longer raise its own.
   */
  @Test
  void aTakeOverCarriesAnEpochAboveTheExpiredHoldersRaisedOne() throws IOException {
    ObjectStore.Lock stale = first.lock(TABLE);
    assertThat(stale.epoch()).isEqualTo(1);
    assertThat(stale.raiseEpoch(27, "take fencing epoch 27")).isEqualTo(27);
    assertThat(stale.raiseEpoch(3, "take fencing epoch 3")).as("never lowered").isEqualTo(27);
    clock.advance(Duration.ofMinutes(10).plusMillis(1));

    try (ObjectStore.Lock taken = second.lock(TABLE)) {
      assertThat(taken.epoch()).isEqualTo(28);
      assertThat(read(first.leasePath(TABLE))).contains("\"epoch\":28");
      assertThatThrownBy(() -> stale.raiseEpoch(40, "take fencing epoch 40"))
          .isInstanceOf(TableBusyException.class)
          .hasMessageContaining("its lease was lost to second-run");
      assertThat(taken.epoch()).isEqualTo(28);
      stale.close();
    }
  }

  @Test
  void aLeaseOfANewerLeaseVersionIsNeverTakenOverAndLeftAsItIs() throws IOException {
    String lease = first.leasePath(TABLE);
    String newer =
        "{\"owner\":\"newer-release\",\"token\":\"t\",\"expires-at-ms\":"
            + (clock.millis() - 1)
            + ",\"lease-version\":2}";
    putLease(lease, newer);
    try {
      assertThatThrownBy(() -> second.lock(TABLE))
          .isInstanceOf(TableBusyException.class)
          .hasMessage(
              "Cannot lock table "
                  + TABLE
                  + ": its lease, held by newer-release, is lease-version 2, written by a newer"
                  + " release, and this release reads lease-version 1 at most; an upgraded"
                  + " instance takes the table");

      assertThat(read(lease)).isEqualTo(newer);
    } finally {
      first.delete(lease);
    }
  }

  private void putLease(String lease, String json) {
    S3Location at = S3Location.parse(lease);
    clients.client.putObject(
        b -> b.bucket(at.bucket()).key(at.key()),
        software.amazon.awssdk.core.sync.RequestBody.fromString(json));
  }

  @Test
  void theLeaseIsRenewedOnScheduleWhileItsRunGoesOnPastTheTtl() throws Exception {
    S3StoreSettings shortLease =
        S3StoreSettings.defaults("long-run")
            .withLock("replicator/locks", "long-run", Duration.ofMillis(1500), Clock.systemUTC());
    S3StoreSettings other =
        shortLease.withLock(
            "replicator/locks", "other-run", Duration.ofMillis(1500), Clock.systemUTC());
    try (S3ObjectStore longRun =
            new S3ObjectStore(
                clients.client, clients.asyncClient, shortLease, S3Resilience.defaults());
        S3ObjectStore otherRun =
            new S3ObjectStore(clients.client, clients.asyncClient, other, S3Resilience.defaults());
        ObjectStore.Lock held = longRun.lock(TABLE + "_long")) {
      Thread.sleep(4000);

      assertThatThrownBy(() -> otherRun.lock(TABLE + "_long"))
          .isInstanceOf(ConflictException.class)
          .hasMessageContaining("locked by long-run until");
      held.checkHeld("publish replica version 1");
    }
  }

  @Test
  void aLeaseTakenOverFailsTheCheckOfItsFormerHolderNamingTheNewOne() throws IOException {
    ObjectStore.Lock stale = first.lock(TABLE);
    clock.advance(Duration.ofMinutes(10).plusMillis(1));
    try (ObjectStore.Lock taken = second.lock(TABLE)) {
      assertThatThrownBy(() -> stale.checkHeld("publish replica version 2"))
          .isInstanceOf(ConflictException.class)
          .hasMessage(
              "Cannot publish replica version 2 of table "
                  + TABLE
                  + ": its lease was lost to second-run "
                  + "(this run's lease expired at 2025-01-01T00:10:00Z)");
      stale.close();
      taken.checkHeld("publish replica version 2");
      assertThat(read(first.leasePath(TABLE))).contains("\"owner\":\"second-run\"");
    }
  }

  @Test
  void anExpiredLeaseNobodyTookIsRenewedByTheCheckAndHeldAgain() throws IOException {
    try (ObjectStore.Lock held = first.lock(TABLE)) {
      clock.advance(Duration.ofMinutes(11));
      held.checkHeld("publish replica version 1");
      assertThatThrownBy(() -> second.lock(TABLE))
          .isInstanceOf(ConflictException.class)
          .hasMessage(
              "Cannot lock table " + TABLE + ": locked by first-run until 2025-01-01T00:21:00Z");
    }
  }

  @Test
  void aReleaseRacingATakeOverLeavesTheNewHoldersLease() throws IOException {
    ObjectStore.Lock stale = first.lock(TABLE);
    clock.advance(Duration.ofMinutes(10).plusMillis(1));
    ObjectStore.Lock[] taken = new ObjectStore.Lock[1];
    // the second run takes the expired lease over just before the first one's release reaches S3
    clients.beforeNext(
        "DeleteObject",
        () -> {
          try {
            taken[0] = second.lock(TABLE);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    try {
      stale.close();
    } finally {
      clients.reset();
    }
    assertThat(taken[0]).isNotNull();
    assertThat(read(first.leasePath(TABLE))).contains("\"owner\":\"second-run\"");
    taken[0].checkHeld("publish replica version 2");
    taken[0].close();
    assertThat(first.length(first.leasePath(TABLE))).isEmpty();
  }

  private String read(String path) throws IOException {
    try (InputStream in = first.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A clock the test moves by hand, to expire leases without waiting. */
  static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
