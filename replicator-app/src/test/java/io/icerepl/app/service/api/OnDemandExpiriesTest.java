package io.icerepl.app.service.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.merge.retention.UnreachableFiles;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** On-demand expiries through a real coordinator whose retention can be held. */
class OnDemandExpiriesTest {
  private static final TableKey T1 = key("lake", "ns/t1");
  private static final TableKey T2 = key("lake", "ns/t2");
  private static final RetentionResult RESULT =
      new RetentionResult(
          UnreachableFiles.none(),
          false,
          false,
          List.of(7L),
          List.of(),
          List.of(),
          "v3.metadata.json");

  private final CountDownLatch held = new CountDownLatch(1);
  private final AtomicInteger expiries = new AtomicInteger();
  private final ReplicationCoordinator coordinator =
      new ReplicationCoordinator(
          key -> Optional.empty(),
          key -> {
            expiries.incrementAndGet();
            try {
              held.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            if (key.table().equals("ns/broken")) {
              throw new IllegalStateException(
                  "Cannot expire snapshots of ns/broken: the replica is gone");
            }
            return RESULT;
          },
          (key, error, retryIn) -> {},
          (key, max) -> {},
          10,
          Executors.newFixedThreadPool(4),
          Executors.newSingleThreadScheduledExecutor(),
          4,
          Duration.ofSeconds(1),
          Duration.ofSeconds(1));

  @AfterEach
  void stop() throws InterruptedException {
    held.countDown();
    coordinator.shutdown(Duration.ofSeconds(5));
  }

  @Test
  void aRuleWithoutRetentionIsRefusedAndNothingRuns() throws InterruptedException {
    OnDemandExpiries expiries =
        new OnDemandExpiries(coordinator::expireNow, rule -> false, 2, Duration.ofSeconds(5));

    assertThat(expiries.request(T1, "operator", "127.0.0.1"))
        .isEqualTo(new OnDemandExpiries.RetentionDisabled("lake"));
    assertThat(this.expiries).hasValue(0);
  }

  @Test
  void aFinishedExpiryReturnsItsResult() throws InterruptedException {
    held.countDown();
    OnDemandExpiries expiries =
        new OnDemandExpiries(coordinator::expireNow, rule -> true, 2, Duration.ofSeconds(5));

    assertThat(expiries.request(T1, "operator", "127.0.0.1"))
        .isEqualTo(new OnDemandExpiries.Done(RESULT));
  }

  @Test
  void aFailedExpiryReturnsItsMessage() throws InterruptedException {
    held.countDown();
    OnDemandExpiries expiries =
        new OnDemandExpiries(coordinator::expireNow, rule -> true, 2, Duration.ofSeconds(5));

    assertThat(expiries.request(key("lake", "ns/broken"), "operator", "127.0.0.1"))
        .isEqualTo(
            new OnDemandExpiries.Failed(
                "Cannot expire snapshots of ns/broken: the replica is gone"));
  }

  @Test
  void aSlowExpiryAnswersAfterTheTimeoutAndHoldsItsPlaceUntilItFinishes()
      throws InterruptedException {
    OnDemandExpiries expiries =
        new OnDemandExpiries(coordinator::expireNow, rule -> true, 1, Duration.ofMillis(200));

    long start = System.nanoTime();
    assertThat(expiries.request(T1, "operator", "127.0.0.1"))
        .isEqualTo(new OnDemandExpiries.Running(Duration.ofMillis(200)));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(expiries.request(T2, "operator", "127.0.0.1"))
        .isEqualTo(new OnDemandExpiries.TooManyPending(1));
    assertThat(this.expiries).as("the refused request queued nothing").hasValue(1);

    held.countDown();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(expiries.request(T2, "operator", "127.0.0.1"))
                    .isEqualTo(new OnDemandExpiries.Done(RESULT)));
  }

  private static TableKey key(String rule, String table) {
    return new TableKey(rule, "a", table, "file:/src/" + table, "file:/dst/" + table);
  }
}
