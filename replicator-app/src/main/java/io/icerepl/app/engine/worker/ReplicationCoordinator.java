package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.retention.RetentionResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs replication and retention per {@link TableKey}: one run at a time per key (replication,
 * retention and other lane work such as verification of a key share its lane), different keys in
 * parallel, at most {@code maxConcurrent} at once. A trigger that arrives while its key runs or
 * waits is coalesced into one follow-up run: never lost, never run in parallel. A failed
 * replication is tried again after an exponential back-off; triggers in between wait for that
 * retry. A rule holds at most {@code maxLanesPerRule} lanes: a key beyond them is refused, so no
 * flood of events can make the coordinator hold without bound.
 *
 * <p>The coordinator owns the executors it is given and shuts them down on {@link #close}.
 */
public final class ReplicationCoordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationCoordinator.class);

  /** Replicates one key; throws to report a failure. */
  @FunctionalInterface
  public interface ReplicationAction {
    /**
     * @return when to run the key again although nothing triggers it (a source metadata file was
     *     too young to trust, a catalog did not name an announced version yet), empty when there is
     *     no need; the key holds one such follow-up at a time, the one its last run asked for
     */
    Optional<Duration> replicate(TableKey key) throws Exception;
  }

  /**
   * Told of every failed replication, with when it will be tried again: null for a promoted
   * replica, which is not tried again until triggered.
   */
  @FunctionalInterface
  public interface FailureListener {
    void failed(TableKey key, Exception error, Duration retryIn);
  }

  /** Told of every key refused because its rule holds {@code maxLanesPerRule} lanes. */
  @FunctionalInterface
  public interface RefusalListener {
    void refused(TableKey key, int maxLanesPerRule);
  }

  private final ReplicationAction replication;
  private final Function<TableKey, RetentionResult> retention;
  private final FailureListener failures;
  private final RefusalListener refusals;
  private final int maxLanesPerRule;
  private final ExecutorService executor;
  private final ScheduledExecutorService scheduler;
  private final int maxConcurrent;
  private final Duration initialBackoff;
  private final Duration maxBackoff;

  private final Map<TableKey, Lane> lanes = new HashMap<>();
  private final Map<String, Integer> lanesPerRule = new HashMap<>();
  private final Deque<Lane> ready = new ArrayDeque<>();
  private int running;
  private boolean closed;

  /**
   * @param replication replicates one key
   * @param retention expires one key's replica snapshots
   * @param failures told of each failed replication
   * @param refusals told of each key refused for its rule's lane limit
   * @param maxLanesPerRule the most lanes one rule holds
   * @param executor runs the lanes; needs at least {@code maxConcurrent} threads
   * @param scheduler fires retries
   */
  public ReplicationCoordinator(
      ReplicationAction replication,
      Function<TableKey, RetentionResult> retention,
      FailureListener failures,
      RefusalListener refusals,
      int maxLanesPerRule,
      ExecutorService executor,
      ScheduledExecutorService scheduler,
      int maxConcurrent,
      Duration initialBackoff,
      Duration maxBackoff) {
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("maxConcurrent must be at least 1, got " + maxConcurrent);
    }
    this.replication = replication;
    this.retention = retention;
    this.failures = failures;
    this.refusals = refusals;
    this.maxLanesPerRule = maxLanesPerRule;
    this.executor = executor;
    this.scheduler = scheduler;
    this.maxConcurrent = maxConcurrent;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
  }

  /**
   * Asks for a replication of {@code key}; returns at once.
   *
   * @return false when the coordinator is shutting down, or the key's rule holds its most lanes,
   *     and took nothing
   */
  public synchronized boolean trigger(TableKey key) {
    if (closed) {
      LOG.debug("{}: not triggered, shutting down", key);
      return false;
    }
    Lane lane = lane(key);
    if (lane == null) {
      return false;
    }
    lane.replicationPending = true;
    offer(lane);
    return true;
  }

  /**
   * Expires the replica's snapshots of {@code key} in its lane, after the lane's current run.
   *
   * @return the result, or the failure; failed at once when shutting down
   */
  public synchronized CompletableFuture<RetentionResult> expireNow(TableKey key) {
    CompletableFuture<RetentionResult> result = new CompletableFuture<>();
    laneFor(key, "expire snapshots of", result)
        .ifPresent(
            lane -> {
              lane.expiries.add(result);
              offer(lane);
            });
    return result;
  }

  /**
   * Runs {@code work} for {@code key} in the key's lane, after the lane's current run: never beside
   * a replication or retention run of the same key (verification reads a replica that must not
   * change under it).
   *
   * @param what what the work does, as in "Cannot verify ..." when it cannot run
   * @return the work's result, or its failure; failed at once when shutting down
   */
  public synchronized <T> CompletableFuture<T> runInLane(
      TableKey key, String what, Function<TableKey, T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    laneFor(key, what, result)
        .ifPresent(
            lane -> {
              lane.tasks.add(new LaneTask<>(what, work, result));
              offer(lane);
            });
    return result;
  }

  /**
   * The key's lane for on-demand work, or none, {@code result} failed at once saying why: the
   * service is shutting down, or the key's rule holds its most lanes.
   *
   * @param what what the work does, as in "Cannot verify ..."
   */
  private Optional<Lane> laneFor(TableKey key, String what, CompletableFuture<?> result) {
    if (closed) {
      result.completeExceptionally(
          new IllegalStateException("Cannot " + what + " " + key + ": shutting down"));
      return Optional.empty();
    }
    Lane lane = lane(key);
    if (lane == null) {
      result.completeExceptionally(
          new IllegalStateException(
              "Cannot "
                  + what
                  + " "
                  + key
                  + ": rule "
                  + key.rule()
                  + " holds its most lanes ("
                  + maxLanesPerRule
                  + ")"));
    }
    return Optional.ofNullable(lane);
  }

  /** Whether the key has a lane: it was triggered or expired before. */
  public synchronized boolean hasLane(TableKey key) {
    return lanes.containsKey(key);
  }

  /** Lanes held, busy or idle. */
  public synchronized int lanes() {
    return lanes.size();
  }

  /** Keys that are running or queued (ready or waiting for a retry). */
  public synchronized int pending() {
    return (int) lanes.values().stream().filter(Lane::busy).count();
  }

  /**
   * Takes no more triggers, drops queued work (reconciliation finds it again after a restart, or on
   * another instance), lets running work finish for at most {@code timeout}, then interrupts it and
   * waits at most {@link #ABANDON_WAIT} for it to unwind: an interrupted run stops before its next
   * change to the replica and releases its table's lease on the way out, so another instance takes
   * the table at once rather than after the lease's TTL.
   *
   * @return whether all running work finished in time
   */
  public boolean shutdown(Duration timeout) throws InterruptedException {
    return shutdown(timeout, () -> {});
  }

  /**
   * As {@link #shutdown(Duration)}, running {@code abandon} once runs are interrupted: it stops
   * what they wait for on other threads (their file copies), so that they unwind in time.
   */
  public boolean shutdown(Duration timeout, Runnable abandon) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean finished;
    List<TableKey> abandoned;
    synchronized (this) {
      closed = true;
      ready.clear();
      for (Lane lane : lanes.values()) {
        lane.replicationPending = false;
        if (lane.retry != null) {
          lane.retry.cancel(false);
        }
        if (lane.followUp != null) {
          lane.followUp.cancel(false);
        }
        lane.expiries.forEach(
            f ->
                f.completeExceptionally(
                    new IllegalStateException(
                        "Cannot expire snapshots of " + lane.key + ": shutting down")));
        lane.expiries.clear();
        lane.tasks.forEach(task -> task.abandon(lane.key));
        lane.tasks.clear();
      }
      long left;
      while (running > 0 && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      finished = running == 0;
      abandoned = lanes.values().stream().filter(l -> l.running).map(l -> l.key).toList();
    }
    scheduler.shutdownNow();
    executor.shutdown();
    if (!finished) {
      LOG.warn(
          "Shutdown: {} run(s) still going after {}; abandoning them (their replicas stay as they"
              + " were): {}",
          abandoned.size(),
          timeout,
          abandoned);
      executor.shutdownNow();
      abandon.run();
      if (!executor.awaitTermination(ABANDON_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Shutdown: runs did not stop within {} of being abandoned; their leases expire on"
                + " their own",
            ABANDON_WAIT);
      }
    }
    return finished;
  }

  /** How long abandoned runs get to unwind (and release their leases) before the process goes. */
  static final Duration ABANDON_WAIT = Duration.ofSeconds(2);

  @Override
  public void close() throws InterruptedException {
    shutdown(Duration.ofSeconds(30));
  }

  /** The key's lane, created when its rule has room; null when it has none. */
  private Lane lane(TableKey key) {
    Lane lane = lanes.get(key);
    if (lane != null) {
      return lane;
    }
    int held = lanesPerRule.getOrDefault(key.rule(), 0);
    if (held >= maxLanesPerRule) {
      try {
        refusals.refused(key, maxLanesPerRule);
      } catch (RuntimeException listenerError) {
        LOG.error("{}: refusal listener failed", key, listenerError);
      }
      return null;
    }
    lanesPerRule.put(key.rule(), held + 1);
    lane = new Lane(key);
    lanes.put(key, lane);
    return lane;
  }

  private void offer(Lane lane) {
    if (lane.running || lane.queued || !lane.hasWork()) {
      return;
    }
    lane.queued = true;
    ready.add(lane);
    dispatch();
  }

  private void dispatch() {
    while (running < maxConcurrent && !ready.isEmpty()) {
      Lane lane = ready.poll();
      lane.queued = false;
      lane.running = true;
      running++;
      executor.execute(() -> run(lane));
    }
  }

  /** Runs one unit of the lane's work, so lanes with a backlog take turns with the others. */
  private void run(Lane lane) {
    CompletableFuture<RetentionResult> expiry;
    LaneTask<?> task = null;
    synchronized (this) {
      expiry = lane.expiries.poll();
      if (expiry == null) {
        task = lane.tasks.poll();
      }
      if (expiry == null && task == null) {
        lane.replicationPending = false;
        // this run decides anew whether to run again: one follow-up per key at a time, so a flood
        // of events cannot multiply the runs it schedules
        if (lane.followUp != null) {
          lane.followUp.cancel(false);
          lane.followUp = null;
        }
      }
    }
    Duration retryIn = null;
    try {
      if (expiry != null) {
        expire(lane.key, expiry);
      } else if (task != null) {
        task.run(lane.key);
      } else {
        retryIn = replicate(lane.key);
      }
    } finally {
      synchronized (this) {
        lane.running = false;
        running--;
        if (retryIn != null && !closed) {
          lane.backingOff = true;
          lane.retry =
              scheduler.schedule(() -> retry(lane), retryIn.toMillis(), TimeUnit.MILLISECONDS);
        }
        offer(lane);
        dispatch();
        notifyAll();
      }
    }
  }

  /**
   * @return when to try again after a failure, null after a success
   */
  private Duration replicate(TableKey key) {
    try {
      Optional<Duration> followUp = replication.replicate(key);
      synchronized (this) {
        Lane lane = lanes.get(key);
        lane.failures = 0;
        if (followUp.isPresent() && !closed) {
          lane.followUp =
              scheduler.schedule(
                  () -> trigger(key), followUp.get().toMillis(), TimeUnit.MILLISECONDS);
        }
      }
      return null;
    } catch (Exception e) {
      // a promoted replica stays promoted: retrying cannot change that, only fail-back can
      if (e instanceof TableReplicationException t && t.promoted().isPresent()) {
        try {
          failures.failed(key, e, null);
        } catch (RuntimeException listenerError) {
          LOG.error("{}: failure listener failed", key, listenerError);
        }
        return null;
      }
      int failureCount;
      synchronized (this) {
        failureCount = ++lanes.get(key).failures;
      }
      Duration retryIn = backoff(failureCount);
      try {
        failures.failed(key, e, retryIn);
      } catch (RuntimeException listenerError) {
        LOG.error("{}: failure listener failed", key, listenerError);
      }
      return retryIn;
    }
  }

  private void expire(TableKey key, CompletableFuture<RetentionResult> result) {
    try {
      result.complete(retention.apply(key));
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    }
  }

  private synchronized void retry(Lane lane) {
    lane.retry = null;
    lane.backingOff = false;
    if (!closed) {
      lane.replicationPending = true;
      offer(lane);
    }
  }

  Duration backoff(int failureCount) {
    Duration delay = initialBackoff;
    for (int i = 1; i < failureCount && delay.compareTo(maxBackoff) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(maxBackoff) > 0 ? maxBackoff : delay;
  }

  /** Work other than replication and retention queued in a lane, with its caller's future. */
  private record LaneTask<T>(String what, Function<TableKey, T> work, CompletableFuture<T> result) {
    void run(TableKey key) {
      try {
        result.complete(work.apply(key));
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    }

    void abandon(TableKey key) {
      result.completeExceptionally(
          new IllegalStateException("Cannot " + what + " " + key + ": shutting down"));
    }
  }

  private static final class Lane {
    final TableKey key;
    final Deque<CompletableFuture<RetentionResult>> expiries = new ArrayDeque<>();
    final Deque<LaneTask<?>> tasks = new ArrayDeque<>();
    boolean replicationPending;
    boolean running;
    boolean queued;
    boolean backingOff;
    int failures;
    ScheduledFuture<?> retry;
    ScheduledFuture<?> followUp;

    Lane(TableKey key) {
      this.key = key;
    }

    boolean hasWork() {
      return !expiries.isEmpty() || !tasks.isEmpty() || (replicationPending && !backingOff);
    }

    boolean busy() {
      return running || queued || backingOff || hasWork();
    }
  }
}
