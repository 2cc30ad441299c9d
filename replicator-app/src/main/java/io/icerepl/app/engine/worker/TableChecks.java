package io.icerepl.app.engine.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where reconciliation's per-table checks run (restoring a replica's status, listing its metadata
 * folder): on a small pool of their own, off the scheduler that runs the pass, so a replica whose
 * store hangs stalls only its own table. A pass waits for each of its checks up to {@code deadline}
 * from the check's start; one past it is left running (Java cannot stop a thread stuck in a read),
 * shown in {@link #stuck()} naming its table, and a thread is added in its place for as long as it
 * runs, so the other tables' checks go on. A table whose check is still under way is not checked
 * again, so at most one thread per table is ever stuck. A check that ends late still acts on what
 * it found: a slow replica is only late, not left out. The threads are daemons, dropped at {@link
 * #close()} without a wait, so a stuck check cannot hold the bounded shutdown.
 */
public final class TableChecks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableChecks.class);

  private final ThreadPoolExecutor pool;
  private final Duration deadline;
  private final Clock clock;
  private final Map<TableKey, Check> running = new ConcurrentHashMap<>();

  /** A table's check, from when it is queued until it ends. */
  static final class Check {
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile Instant started;
    private boolean stuck; // guarded by the TableChecks
  }

  /**
   * @param threads the checks that run at once while none is stuck
   * @param deadline how long a check may run before the pass goes on without it
   */
  public TableChecks(int threads, Duration deadline, Clock clock) {
    this.deadline = deadline;
    this.clock = clock;
    AtomicInteger count = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "replicator-check-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Queues {@code check} of {@code key} unless its previous check is still under way.
   *
   * @return the check queued, for {@link #await}; empty when the previous one still runs or the
   *     pool is closed
   */
  Optional<Check> start(TableKey key, Runnable check) {
    Check started = new Check();
    Check previous = running.putIfAbsent(key, started);
    if (previous != null) {
      LOG.debug("{}: its previous check is still under way", key);
      return Optional.empty();
    }
    try {
      pool.execute(
          () -> {
            started.started = clock.instant();
            try {
              check.run();
            } catch (RuntimeException e) {
              LOG.warn("{}: reconciliation check failed: {}", key, e.getMessage());
            } finally {
              ended(key, started);
            }
          });
    } catch (RejectedExecutionException e) {
      running.remove(key, started); // closed
      return Optional.empty();
    }
    return Optional.of(started);
  }

  /**
   * Waits for each of {@code checks} to end or to pass its deadline, counted from its start; one
   * past it is marked stuck and gets a thread added in its place. Returns early when interrupted
   * (the scheduler shutting down), with the interrupt kept.
   */
  void await(List<Check> checks) {
    for (Check check : checks) {
      while (!check.done.isDone()) {
        Instant started = check.started;
        Duration left =
            started == null ? deadline : deadline.minus(Duration.between(started, clock.instant()));
        if (started != null && left.isNegative()) {
          stuck(check);
          break;
        }
        try {
          check.done.get(Math.max(left.toMillis(), 1), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
          // not started yet behind other checks, or past its deadline: looked at again
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private synchronized void stuck(Check check) {
    if (check.done.isDone() || check.stuck) {
      return;
    }
    check.stuck = true;
    // maximum first: the core size may not exceed it
    pool.setMaximumPoolSize(pool.getMaximumPoolSize() + 1);
    pool.setCorePoolSize(pool.getCorePoolSize() + 1);
  }

  private synchronized void ended(TableKey key, Check check) {
    running.remove(key, check);
    check.done.complete(null);
    if (check.stuck) {
      LOG.info("{}: its check ended past its deadline of {}", key, deadline);
      pool.setCorePoolSize(pool.getCorePoolSize() - 1);
      pool.setMaximumPoolSize(pool.getMaximumPoolSize() - 1);
    }
  }

  /**
   * Each table (as {@code <target>/<table>}) whose check runs past its deadline, and since when.
   */
  public Map<String, String> stuck() {
    Instant now = clock.instant();
    Map<String, String> stuck = new TreeMap<>();
    running.forEach(
        (key, check) -> {
          Instant started = check.started;
          if (started != null && Duration.between(started, now).compareTo(deadline) > 0) {
            stuck.put(
                key.target() + "/" + key.table(),
                "reconciliation's check of replica "
                    + key.targetLocation()
                    + " under way since "
                    + started
                    + ", past its deadline of "
                    + deadline);
          }
        });
    return stuck;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
