package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.merge.failover.Promotion;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicationCoordinatorTest {
  private static final TableKey T1 = key("ns/t1");
  private static final TableKey T2 = key("ns/t2");
  private static final int MAX_LANES_PER_RULE = 6;

  /** Only a bound for a broken coordinator: a working one gets there at once. */
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final FakeReplication action = new FakeReplication();
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();
  private ReplicationCoordinator coordinator;

  @AfterEach
  void stop() throws InterruptedException {
    action.releaseAll();
    if (coordinator != null) {
      coordinator.shutdown(Duration.ofSeconds(5));
    }
  }

  @Test
  void runsOneReplicationAtATimePerKeyAndCoalescesTriggersArrivingMeanwhile() throws Exception {
    coordinator = coordinator(4, Duration.ofSeconds(10));
    action.blockRuns();
    coordinator.trigger(T1);
    action.awaitStarted(T1, 1);
    for (int i = 0; i < 5; i++) {
      coordinator.trigger(T1);
    }
    // a trigger decides under the coordinator's lock: a run it started would have started already
    assertThat(action.maxParallel(T1)).isEqualTo(1);
    assertThat(action.started(T1)).isEqualTo(1);

    action.release(1);
    action.awaitStarted(T1, 2);
    action.release(1);
    awaitIdle();
    assertThat(action.started(T1))
        .as("five triggers during a run make one follow-up run")
        .isEqualTo(2);
    assertThat(action.maxParallel(T1)).isEqualTo(1);
  }

  @Test
  void workRunInALaneWaitsForTheKeysReplicationAndTheNextReplicationWaitsForIt() throws Exception {
    coordinator = coordinator(4, Duration.ofSeconds(10));
    action.blockRuns();
    coordinator.trigger(T1);
    action.awaitStarted(T1, 1);
    AtomicInteger replicationsDuringWork = new AtomicInteger(-1);

    var result =
        coordinator.runInLane(
            T1,
            "verify",
            key -> {
              replicationsDuringWork.set(action.running());
              return key.table();
            });
    coordinator.trigger(T1);
    assertThat(result).isNotDone();

    action.release(2);
    assertThat(result.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ns/t1");
    awaitIdle();
    assertThat(replicationsDuringWork.get()).as("replications running beside the work").isZero();
    assertThat(action.started(T1)).isEqualTo(2);
    assertThat(action.maxParallel(T1)).isEqualTo(1);
  }

  @Test
  void runsDifferentKeysInParallel() throws Exception {
    coordinator = coordinator(4, Duration.ofSeconds(10));
    action.blockRuns();
    coordinator.trigger(T1);
    coordinator.trigger(T2);
    action.awaitStarted(T1, 1);
    action.awaitStarted(T2, 1);
    assertThat(action.running()).isEqualTo(2);
    action.release(2);
    awaitIdle();
  }

  @Test
  void runsAtMostTheConfiguredNumberOfKeysAtOnce() throws Exception {
    coordinator = coordinator(2, Duration.ofSeconds(10));
    action.blockRuns();
    for (int i = 0; i < 5; i++) {
      coordinator.trigger(key("ns/t" + i));
    }
    action.awaitRunning(2);
    assertThat(coordinator.pending()).as("three keys wait for a free slot").isEqualTo(5);
    action.release(1);
    action.awaitTotalStarted(3);
    assertThat(action.running()).as("a finished run frees one slot").isEqualTo(2);
    action.release(4);
    awaitIdle();
    assertThat(action.totalStarted()).isEqualTo(5);
    assertThat(action.maxRunning()).isEqualTo(2);
  }

  @Test
  void aFailureIsReportedAndRetriedAfterTheBackoffWithoutAnotherTrigger() throws Exception {
    coordinator = coordinator(4, Duration.ofMillis(200));
    action.failNext(T1, 1);
    long start = System.nanoTime();
    coordinator.trigger(T1);
    action.awaitStarted(T1, 2);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    awaitIdle();
    assertThat(failures)
        .containsExactly("ns/t1: Cannot replicate ns/t1: injected, retry in PT0.2S");
    assertThat(elapsedMs).as("the retry waited for the back-off").isGreaterThanOrEqualTo(200);
    assertThat(action.succeeded(T1)).isEqualTo(1);
  }

  @Test
  void triggersDuringTheBackoffWaitForTheRetry() throws Exception {
    CountDownLatch failed = new CountDownLatch(1);
    // taken in the failure callback, which runs before the retry is scheduled: a test thread that
    // wakes late on a loaded machine cannot shorten the measured back-off
    AtomicLong failedAtNanos = new AtomicLong();
    coordinator =
        new ReplicationCoordinator(
            action,
            k -> null,
            (k, e, retryIn) -> {
              failedAtNanos.set(System.nanoTime());
              failed.countDown();
            },
            (k, max) -> {},
            MAX_LANES_PER_RULE,
            Executors.newFixedThreadPool(4),
            Executors.newSingleThreadScheduledExecutor(),
            4,
            Duration.ofMillis(400),
            Duration.ofMillis(1600));
    action.failNext(T1, 1);
    coordinator.trigger(T1);
    assertThat(failed.await(30, TimeUnit.SECONDS)).isTrue();
    long failedAt = failedAtNanos.get();
    coordinator.trigger(T1);
    coordinator.trigger(T1);
    action.awaitStarted(T1, 2);
    long retriedAfterMs = TimeUnit.NANOSECONDS.toMillis(action.lastStartNanos(T1) - failedAt);
    awaitIdle();
    assertThat(retriedAfterMs).as("no run before the back-off ends").isGreaterThanOrEqualTo(400);
    assertThat(action.started(T1)).as("the triggers are folded into the retry").isEqualTo(2);
  }

  @Test
  void aRunThatLeftASourceFileSettlingRunsAgainWhenItSettles() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch twoRuns = new CountDownLatch(2);
    coordinator =
        new ReplicationCoordinator(
            k -> {
              twoRuns.countDown();
              return runs.incrementAndGet() == 1
                  ? Optional.of(Duration.ofMillis(100))
                  : Optional.empty();
            },
            k -> null,
            (k, e, d) -> {},
            (k, max) -> {},
            10,
            Executors.newFixedThreadPool(1),
            Executors.newSingleThreadScheduledExecutor(),
            1,
            Duration.ofSeconds(10),
            Duration.ofSeconds(10));
    coordinator.trigger(T1);
    assertThat(twoRuns.await(10, TimeUnit.SECONDS)).as("a second run without a trigger").isTrue();
    awaitIdle();
    assertThat(runs.get()).isEqualTo(2);
  }

  @Test
  void aKeyHoldsOneFollowUpAtATimeHoweverManyRunsAskedForOne() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    coordinator =
        new ReplicationCoordinator(
            k -> {
              runs.incrementAndGet();
              return Optional.of(Duration.ofHours(1));
            },
            k -> null,
            (k, e, d) -> {},
            (k, max) -> {},
            10,
            Executors.newFixedThreadPool(1),
            scheduler,
            1,
            Duration.ofSeconds(10),
            Duration.ofSeconds(10));
    for (int i = 1; i <= 3; i++) {
      coordinator.trigger(T1);
      awaitIdle();
    }
    assertThat(runs.get()).isEqualTo(3);
    assertThat(scheduler.getQueue().stream().filter(task -> !((Future<?>) task).isCancelled()))
        .as("follow-ups waiting")
        .hasSize(1);
  }

  @Test
  void aRuleHoldsAtMostItsLaneLimitAndKeysBeyondItAreRefused() throws Exception {
    coordinator = coordinator(4, Duration.ofSeconds(10));
    for (int i = 1; i <= MAX_LANES_PER_RULE + 2; i++) {
      boolean accepted = coordinator.trigger(key("ns/t" + i));
      assertThat(accepted).as("ns/t%s", i).isEqualTo(i <= MAX_LANES_PER_RULE);
    }
    TableKey otherRule = new TableKey("other", "a", "ns/t9", "file:/o/ns/t9", "file:/a/ns/t9");

    assertThat(coordinator.trigger(otherRule)).as("another rule has its own lanes").isTrue();
    assertThat(coordinator.trigger(T1)).as("a key holding a lane is still triggered").isTrue();
    assertThat(coordinator.expireNow(key("ns/t8"))).isCompletedExceptionally();
    assertThat(coordinator.lanes()).isEqualTo(MAX_LANES_PER_RULE + 1);
    assertThat(refused).containsExactly("ns/t7", "ns/t8", "ns/t8");
    awaitIdle();
    assertThat(action.started(key("ns/t7"))).isZero();
  }

  @Test
  void aPromotedReplicaIsReportedAndNotRetried() throws Exception {
    coordinator = coordinator(4, Duration.ofMillis(50));
    Promotion promotion = new Promotion(1, 0L, "now", "v3.metadata.json", null, 4);
    action.failNext(
        T1,
        new TableReplicationException(
            "ns/t1",
            PromotedReplicaException.of(
                "ns/t1", "file:/dst/ns/t1", promotion, "v3.metadata.json")));
    coordinator.trigger(T1);
    awaitIdle();
    Thread.sleep(500);
    assertThat(action.started(T1)).as("no retry after ten back-offs").isEqualTo(1);
    assertThat(failures).singleElement().asString().endsWith(", retry in null");
  }

  @Test
  void backoffDoublesUpToTheMaximum() {
    coordinator =
        new ReplicationCoordinator(
            k -> Optional.empty(),
            k -> null,
            (k, e, d) -> {},
            (k, max) -> {},
            10,
            Executors.newFixedThreadPool(1),
            Executors.newSingleThreadScheduledExecutor(),
            1,
            Duration.ofSeconds(5),
            Duration.ofMinutes(10));
    assertThat(List.of(1, 2, 3, 7, 8, 50).stream().map(coordinator::backoff).toList())
        .containsExactly(
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(20),
            Duration.ofSeconds(320),
            Duration.ofMinutes(10),
            Duration.ofMinutes(10));
  }

  @Test
  void expiryRunsInTheKeysLaneAfterTheRunningReplication() throws Exception {
    AtomicInteger replicationsRunningDuringExpiry = new AtomicInteger(-1);
    coordinator =
        new ReplicationCoordinator(
            action,
            k -> {
              replicationsRunningDuringExpiry.set(action.running());
              return null;
            },
            (k, e, d) -> {},
            (k, max) -> {},
            10,
            Executors.newFixedThreadPool(4),
            Executors.newSingleThreadScheduledExecutor(),
            4,
            Duration.ofSeconds(10),
            Duration.ofSeconds(10));
    action.blockRuns();
    coordinator.trigger(T1);
    action.awaitStarted(T1, 1);
    var expiry = coordinator.expireNow(T1);
    assertThat(expiry).isNotDone();
    action.release(1);
    expiry.get(5, TimeUnit.SECONDS);
    assertThat(replicationsRunningDuringExpiry.get()).isZero();
  }

  @Test
  void shutdownTakesNoMoreTriggersAndWaitsForRunningWork() throws Exception {
    coordinator = coordinator(4, Duration.ofSeconds(10));
    action.blockRuns();
    coordinator.trigger(T1);
    action.awaitStarted(T1, 1);
    coordinator.trigger(T1);

    CountDownLatch shutDown = new CountDownLatch(1);
    AtomicInteger finishedInTime = new AtomicInteger(-1);
    Thread stopper =
        new Thread(
            () -> {
              try {
                finishedInTime.set(coordinator.shutdown(Duration.ofSeconds(5)) ? 1 : 0);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              shutDown.countDown();
            });
    stopper.start();
    assertThat(shutDown.await(200, TimeUnit.MILLISECONDS))
        .as("shutdown waits for the running run")
        .isFalse();
    assertThat(coordinator.trigger(T2)).isFalse();

    action.release(1);
    assertThat(shutDown.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(finishedInTime.get()).isEqualTo(1);
    assertThat(action.succeeded(T1)).isEqualTo(1);
    assertThat(action.started(T1)).as("the queued follow-up is dropped").isEqualTo(1);
    assertThat(action.started(T2)).isZero();
  }

  private ReplicationCoordinator coordinator(int maxConcurrent, Duration backoff) {
    return new ReplicationCoordinator(
        action,
        k -> null,
        (k, e, retryIn) ->
            failures.add(k.table() + ": " + e.getMessage() + ", retry in " + retryIn),
        (k, max) -> refused.add(k.table()),
        MAX_LANES_PER_RULE,
        Executors.newFixedThreadPool(maxConcurrent),
        Executors.newSingleThreadScheduledExecutor(),
        maxConcurrent,
        backoff,
        backoff.multipliedBy(4));
  }

  /** The coordinator notifies its monitor whenever a run ends, the only moment it can turn idle. */
  private void awaitIdle() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    synchronized (coordinator) {
      long left;
      while (coordinator.pending() > 0 && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(coordinator, left);
      }
      assertThat(coordinator.pending()).as("coordinator idle in time").isZero();
    }
  }

  private static TableKey key(String table) {
    return new TableKey("rule", "target", table, "file:/src/" + table, "file:/dst/" + table);
  }

  /** A replication that records its runs, can be held until released, and can fail on demand. */
  private static final class FakeReplication implements ReplicationCoordinator.ReplicationAction {
    private final Map<TableKey, AtomicInteger> started = new ConcurrentHashMap<>();
    private final Map<TableKey, AtomicInteger> succeeded = new ConcurrentHashMap<>();
    private final Map<TableKey, AtomicInteger> running = new ConcurrentHashMap<>();
    private final Map<TableKey, AtomicInteger> maxParallel = new ConcurrentHashMap<>();
    private final Map<TableKey, AtomicInteger> toFail = new ConcurrentHashMap<>();
    private final Map<TableKey, Long> lastStart = new ConcurrentHashMap<>();
    private final AtomicInteger runningTotal = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    private final Semaphore gate = new Semaphore(0);
    private volatile boolean blocking;
    private volatile RuntimeException failure;

    void blockRuns() {
      blocking = true;
    }

    void release(int runs) {
      gate.release(runs);
    }

    void releaseAll() {
      blocking = false;
      gate.release(1000);
    }

    void failNext(TableKey key, int times) {
      toFail.computeIfAbsent(key, k -> new AtomicInteger()).set(times);
    }

    void failNext(TableKey key, RuntimeException error) {
      failure = error;
      failNext(key, 1);
    }

    @Override
    public Optional<Duration> replicate(TableKey key) throws Exception {
      lastStart.put(key, System.nanoTime());
      int now = running.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      maxParallel.computeIfAbsent(key, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
      maxRunning.accumulateAndGet(runningTotal.incrementAndGet(), Math::max);
      started.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      changed();
      try {
        if (blocking) {
          gate.acquire();
        }
        AtomicInteger fail = toFail.get(key);
        if (fail != null && fail.getAndDecrement() > 0) {
          throw failure != null
              ? failure
              : new IllegalStateException("Cannot replicate " + key.table() + ": injected");
        }
        succeeded.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        return Optional.empty();
      } finally {
        running.get(key).decrementAndGet();
        runningTotal.decrementAndGet();
        changed();
      }
    }

    private synchronized void changed() {
      notifyAll();
    }

    private synchronized void await(String what, java.util.function.BooleanSupplier condition)
        throws InterruptedException {
      long deadline = System.nanoTime() + WAIT.toNanos();
      long left;
      while (!condition.getAsBoolean() && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      assertThat(condition.getAsBoolean()).as(what + " in time").isTrue();
    }

    long lastStartNanos(TableKey key) {
      return lastStart.get(key);
    }

    int started(TableKey key) {
      return count(started, key);
    }

    int succeeded(TableKey key) {
      return count(succeeded, key);
    }

    int maxParallel(TableKey key) {
      return count(maxParallel, key);
    }

    int running() {
      return runningTotal.get();
    }

    int maxRunning() {
      return maxRunning.get();
    }

    int totalStarted() {
      return started.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    void awaitStarted(TableKey key, int runs) throws InterruptedException {
      await(key + " started " + runs + " runs", () -> started(key) >= runs);
    }

    void awaitTotalStarted(int runs) throws InterruptedException {
      await(runs + " runs started", () -> totalStarted() >= runs);
    }

    void awaitRunning(int runs) throws InterruptedException {
      await(runs + " runs running", () -> running() == runs);
    }

    private static int count(Map<TableKey, AtomicInteger> map, TableKey key) {
      AtomicInteger n = map.get(key);
      return n == null ? 0 : n.get();
    }
  }
}
