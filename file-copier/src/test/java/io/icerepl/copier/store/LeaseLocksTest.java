package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.TableBusyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link LeaseLocks} promises on any store with conditional writes. Each store's test extends
 * this with its store, a table location in it and the place of its lease objects.
 */
public abstract class LeaseLocksTest {
  private static final String PREFIX = "replicator/locks";
  private static final Duration TTL = Duration.ofMinutes(10);

  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  private final List<LeaseLocks> opened = new ArrayList<>();

  /** The store under test. */
  protected abstract ObjectStore store();

  /** A table location of its own for this test, named {@code name}. */
  protected abstract String table(String name);

  /** Where the store keeps the lease object of a table location. */
  protected abstract LeaseLocks.LeasePath leasePath();

  @AfterEach
  void closeLocks() {
    opened.forEach(LeaseLocks::close);
  }

  private LeaseLocks locks(String owner) {
    return locks(store(), owner, TTL, clock);
  }

  private LeaseLocks locks(ObjectStore store, String owner, Duration ttl, Clock lockClock) {
    LeaseLocks locks =
        new LeaseLocks(store, new LeaseLocks.Settings(PREFIX, owner, ttl, lockClock), leasePath());
    opened.add(locks);
    return locks;
  }

  @Test
  void aLeaseIsExclusiveUntilReleasedByItsHolder() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    LeaseLocks second = locks("second-run");

    try (ObjectStore.Lock held = first.lock(table)) {
      assertThat(held.epoch()).isEqualTo(1);
      assertThatThrownBy(() -> second.lock(table))
          .isInstanceOf(ConflictException.class)
          .hasMessage(
              "Cannot lock table " + table + ": locked by first-run until 2025-01-01T00:10:00Z");
      second.lock(table("other")).close();
    }

    assertThat(store().readVersioned(first.leasePath(table))).isEmpty();
    second.lock(table).close();
  }

  @Test
  void theLeaseRecordNamesItsHolderExpiryEpochAndVersion() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    String lease = first.leasePath(table);
    assertThat(lease).isEqualTo(leasePath().of(PREFIX, table)).doesNotStartWith(table);

    try (ObjectStore.Lock held = first.lock(table)) {
      assertThat(read(lease))
          .startsWith("{\"owner\":\"first-run\",\"token\":\"")
          .endsWith(
              "\",\"expires-at-ms\":"
                  + (clock.millis() + 600_000)
                  + ",\"epoch\":1,\"lease-version\":1}");
    }
  }

  /**
   * A take-over numbers its holding one above the expired one, raised epoch included, so the later
   * of two holdings carries the larger epoch; the former holder can no longer raise its own.
   */
  @Test
  void anExpiredLeaseIsTakenOverWithTheNextEpoch() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    LeaseLocks second = locks("second-run");
    ObjectStore.Lock stale = first.lock(table);
    assertThat(stale.raiseEpoch(27, "take fencing epoch 27")).isEqualTo(27);
    assertThat(stale.raiseEpoch(3, "take fencing epoch 3")).as("never lowered").isEqualTo(27);
    assertThat(read(first.leasePath(table))).contains("\"epoch\":27");
    clock.advance(TTL.plusMillis(1));

    try (ObjectStore.Lock taken = second.lock(table)) {
      assertThat(taken.epoch()).isEqualTo(28);
      assertThat(read(first.leasePath(table)))
          .contains("\"owner\":\"second-run\"")
          .contains("\"epoch\":28");
      assertThatThrownBy(() -> stale.raiseEpoch(40, "take fencing epoch 40"))
          .isInstanceOf(TableBusyException.class)
          .hasMessageContaining("its lease was lost to second-run");
      assertThat(taken.epoch()).isEqualTo(28);
      stale.close();
    }
  }

  @Test
  void aRenewedLeaseOutlivesItsFirstExpiryAndKeepsASecondRunOut() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    LeaseLocks second = locks("second-run");
    try (ObjectStore.Lock held = first.lock(table)) {
      clock.advance(Duration.ofMinutes(4));
      ((LeaseLocks.Held) held).renew();
      clock.advance(Duration.ofMinutes(7));

      // 11 minutes after the lock was taken, 7 after its renewal: the lease holds until 00:14
      assertThatThrownBy(() -> second.lock(table))
          .isInstanceOf(ConflictException.class)
          .hasMessage(
              "Cannot lock table " + table + ": locked by first-run until 2025-01-01T00:14:00Z");
      held.checkHeld("publish replica version 1");
    }
    assertThat(store().readVersioned(first.leasePath(table))).isEmpty();
  }

  @Test
  void theLeaseIsRenewedOnScheduleWhileItsRunGoesOnPastTheTtl() throws Exception {
    String table = table("long");
    Duration ttl = Duration.ofMillis(600);
    LeaseLocks longRun = locks(store(), "long-run", ttl, Clock.systemUTC());
    LeaseLocks otherRun = locks(store(), "other-run", ttl, Clock.systemUTC());
    try (ObjectStore.Lock held = longRun.lock(table)) {
      Thread.sleep(2000);

      assertThatThrownBy(() -> otherRun.lock(table))
          .isInstanceOf(ConflictException.class)
          .hasMessageContaining("locked by long-run until");
      held.checkHeld("publish replica version 1");
    }
  }

  @Test
  void aReleaseAfterATakeOverLeavesTheNewHoldersLease() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    LeaseLocks second = locks("second-run");
    ObjectStore.Lock stale = first.lock(table);
    clock.advance(TTL.plusMillis(1));

    try (ObjectStore.Lock taken = second.lock(table)) {
      stale.close();
      assertThat(read(first.leasePath(table))).contains("\"owner\":\"second-run\"");
      assertThatThrownBy(() -> first.lock(table))
          .isInstanceOf(ConflictException.class)
          .hasMessageContaining("locked by second-run");
      taken.checkHeld("publish replica version 2");
    }
    assertThat(store().readVersioned(first.leasePath(table))).isEmpty();
  }

  /** The take-over lands between the former holder's last look and its release. */
  @Test
  void aReleaseRacingATakeOverLeavesTheNewHoldersLease() throws IOException {
    String table = table("orders");
    LeaseLocks second = locks("second-run");
    ObjectStore.Lock[] taken = new ObjectStore.Lock[1];
    ObjectStore racing =
        new ForwardingObjectStore(store()) {
          @Override
          public boolean deleteIf(String path, ObjectVersion expected) throws IOException {
            if (taken[0] == null) {
              taken[0] = second.lock(table);
            }
            return super.deleteIf(path, expected);
          }
        };
    LeaseLocks first = locks(racing, "first-run", TTL, clock);
    ObjectStore.Lock stale = first.lock(table);
    clock.advance(TTL.plusMillis(1));

    stale.close();

    assertThat(taken[0]).isNotNull();
    assertThat(read(first.leasePath(table))).contains("\"owner\":\"second-run\"");
    taken[0].checkHeld("publish replica version 2");
    taken[0].close();
    assertThat(store().readVersioned(first.leasePath(table))).isEmpty();
  }

  @Test
  void aLeaseTakenOverFailsTheCheckOfItsFormerHolderNamingTheNewOne() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    LeaseLocks second = locks("second-run");
    ObjectStore.Lock stale = first.lock(table);
    clock.advance(TTL.plusMillis(1));

    try (ObjectStore.Lock taken = second.lock(table)) {
      assertThatThrownBy(() -> stale.checkHeld("publish replica version 2"))
          .isInstanceOf(TableBusyException.class)
          .hasMessage(
              "Cannot publish replica version 2 of table "
                  + table
                  + ": its lease was lost to second-run "
                  + "(this run's lease expired at 2025-01-01T00:10:00Z)");
      stale.close();
      taken.checkHeld("publish replica version 2");
    }
  }

  @Test
  void aLeaseRemovedUnderItsHolderFailsTheCheckNamingNobody() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    try (ObjectStore.Lock held = first.lock(table)) {
      store().delete(first.leasePath(table));

      assertThatThrownBy(() -> held.checkHeld("publish replica version 2"))
          .isInstanceOf(TableBusyException.class)
          .hasMessageContaining("its lease was lost to nobody (the lease is gone)");
    }
    assertThat(store().readVersioned(first.leasePath(table))).isEmpty();
  }

  @Test
  void anExpiredLeaseNobodyTookIsRenewedByTheCheckAndHeldAgain() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    LeaseLocks second = locks("second-run");
    try (ObjectStore.Lock held = first.lock(table)) {
      clock.advance(Duration.ofMinutes(11));
      held.checkHeld("publish replica version 1");
      assertThatThrownBy(() -> second.lock(table))
          .isInstanceOf(ConflictException.class)
          .hasMessage(
              "Cannot lock table " + table + ": locked by first-run until 2025-01-01T00:21:00Z");
    }
  }

  /** A lease as the releases before lease versions wrote it is one of version 1, epoch 0. */
  @Test
  void anExpiredLeaseAnEarlierReleaseWroteIsTakenOver() throws IOException {
    String table = table("orders");
    LeaseLocks second = locks("second-run");
    String lease = second.leasePath(table);
    put(
        lease,
        "{\"owner\":\"earlier-release\",\"token\":\"t\",\"expires-at-ms\":"
            + (clock.millis() - 1)
            + "}");

    try (ObjectStore.Lock taken = second.lock(table)) {
      assertThat(read(lease)).contains("\"owner\":\"second-run\"").contains("\"lease-version\":1");
      assertThat(taken.epoch()).as("one more than the record's absent epoch").isEqualTo(1);
    }
  }

  @Test
  void aLeaseOfANewerLeaseVersionIsNeverTakenOverAndLeftAsItIs() throws IOException {
    String table = table("orders");
    LeaseLocks second = locks("second-run");
    String lease = second.leasePath(table);
    String newer =
        "{\"owner\":\"newer-release\",\"token\":\"t\",\"expires-at-ms\":"
            + (clock.millis() - 1)
            + ",\"lease-version\":2}";
    put(lease, newer);

    assertThatThrownBy(() -> second.lock(table))
        .isInstanceOf(TableBusyException.class)
        .hasMessage(
            "Cannot lock table "
                + table
                + ": its lease, held by newer-release, is lease-version 2, written by a newer"
                + " release, and this release reads lease-version 1 at most; an upgraded"
                + " instance takes the table");
    assertThat(read(lease)).isEqualTo(newer);
  }

  @Test
  void aLeaseThatIsNotJsonIsNotTakenOver() throws IOException {
    String table = table("orders");
    LeaseLocks second = locks("second-run");
    String lease = second.leasePath(table);
    put(lease, "not a lease");

    assertThatThrownBy(() -> second.lock(table))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot read lease " + lease + ": not JSON");
    assertThat(read(lease)).isEqualTo("not a lease");
  }

  /** A run a stopping service interrupted releases its lease, and keeps its interrupt. */
  @Test
  void anInterruptedRunReleasesItsLeaseAndStaysInterrupted() throws IOException {
    String table = table("orders");
    LeaseLocks first = locks("first-run");
    ObjectStore.Lock held = first.lock(table);

    Thread.currentThread().interrupt();
    try {
      held.close();
    } finally {
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    }
    assertThat(store().readVersioned(first.leasePath(table))).isEmpty();
  }

  private void put(String path, String content) throws IOException {
    store().write(path, out -> out.write(content.getBytes(StandardCharsets.UTF_8)));
  }

  private String read(String path) throws IOException {
    return new String(store().readVersioned(path).orElseThrow().content(), StandardCharsets.UTF_8);
  }

  /** A clock the test moves by hand, to expire leases without waiting. */
  private static final class MutableClock extends Clock {
    private volatile Instant now;

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
