package io.icerepl.app.engine.group;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the replication groups' work runs: each group's tagging rounds and the reads of its cut,
 * off the scheduler that runs reconciliation and off the threads that answer HTTP requests, so a
 * group whose replicas cannot be read (a store that hangs) stalls neither the other tables nor
 * reconciliation. Each group has at most one round and one read of its cut under way (a caller
 * asking meanwhile waits for that read), so the pool's threads, two per group, are never all taken
 * by one group. A task past its deadline is not abandoned (Java cannot stop a thread stuck in a
 * read) but is shown in health as stuck, naming its group ({@link #stuck()}); its callers stop
 * waiting at the deadline. The threads are daemons, dropped at shutdown without a wait, so a stuck
 * read cannot hold the service's bounded shutdown.
 */
public final class GroupWork implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupWork.class);

  /** The least a group's task is given before it counts as stuck. */
  public static final Duration DEADLINE = Duration.ofSeconds(10);

  private final ExecutorService pool;
  private final Clock clock;
  private final Map<String, Task> rounds = new ConcurrentHashMap<>();
  private final Map<String, Task> reads = new ConcurrentHashMap<>();

  /** A group's task under way. */
  private record Task(String what, Instant since, Duration deadline, CompletableFuture<?> done) {}

  /** A pool for {@code groups} groups. */
  public GroupWork(int groups, Clock clock) {
    this.clock = clock;
    int threads = Math.max(1, 2 * groups);
    AtomicInteger count = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "group-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** A round's deadline: its interval, at least {@link #DEADLINE}. */
  public static Duration roundDeadline(GroupSettings group) {
    return group.tagInterval().compareTo(DEADLINE) > 0 ? group.tagInterval() : DEADLINE;
  }

  /**
   * Starts {@code round} for {@code group} unless its previous round is still under way, and
   * returns at once: the scheduler that calls it goes on with reconciliation.
   */
  public void round(String group, String what, Duration deadline, Runnable round) {
    Task started = new Task(what, clock.instant(), deadline, new CompletableFuture<>());
    Task running = rounds.putIfAbsent(group, started);
    if (running != null) {
      LOG.debug("group {}: its previous {} is still under way", group, running.what());
      return;
    }
    try {
      pool.execute(
          () -> {
            try {
              round.run();
            } catch (RuntimeException e) {
              LOG.warn("group {}: {} failed: {}", group, what, e.getMessage());
            } finally {
              rounds.remove(group, started);
              started.done().complete(null);
            }
          });
    } catch (RejectedExecutionException e) {
      rounds.remove(group, started); // shutting down
    }
  }

  /**
   * Runs {@code round} as {@code group}'s round on the pool, once the round under way (a scheduled
   * one) has ended, and waits for its outcome until {@code deadline} from this call: a caller that
   * must have a round's outcome (a safe promotion tags a fresh cut) is never left waiting on a
   * replica that hangs. A round past the deadline goes on, and shows in health as stuck.
   *
   * @throws TimeoutException when the round under way, or this one, did not end by the deadline
   */
  public boolean roundAndWait(String group, String what, Duration deadline, BooleanSupplier round)
      throws TimeoutException, InterruptedException {
    long until = System.nanoTime() + deadline.toNanos();
    while (true) {
      CompletableFuture<Boolean> done = new CompletableFuture<>();
      Task started = new Task(what, clock.instant(), deadline, done);
      Task running = rounds.putIfAbsent(group, started);
      if (running == null) {
        try {
          pool.execute(completing(done, round::getAsBoolean, () -> rounds.remove(group, started)));
        } catch (RejectedExecutionException e) {
          rounds.remove(group, started);
          throw new IllegalStateException("Cannot run " + what + ": the service is stopping", e);
        }
        return waitFor(done, until);
      }
      waitFor(running.done(), until); // the round under way first: rounds of a group never overlap
    }
  }

  private static <T> T waitFor(CompletableFuture<T> done, long untilNanos)
      throws TimeoutException, InterruptedException {
    return outcome(done, Math.max(untilNanos - System.nanoTime(), 1), TimeUnit.NANOSECONDS);
  }

  /** The task's result within {@code timeout}; its failure as the task threw it. */
  private static <T> T outcome(CompletableFuture<T> done, long timeout, TimeUnit unit)
      throws TimeoutException, InterruptedException {
    try {
      return done.get(timeout, unit);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** A task that completes {@code done} with {@code work}'s outcome, then runs {@code after}. */
  private static <T> Runnable completing(
      CompletableFuture<T> done, Supplier<T> work, Runnable after) {
    return () -> {
      try {
        done.complete(work.get());
      } catch (RuntimeException | Error e) {
        done.completeExceptionally(e);
      } finally {
        after.run();
      }
    };
  }

  /**
   * The result of {@code read} for {@code group}, read on the pool: the read under way if there is
   * one, else a new one.
   *
   * @throws TimeoutException when it did not end within {@link #DEADLINE} of its start; it goes on,
   *     and shows in health as past its deadline
   */
  @SuppressWarnings("unchecked")
  public <T> T read(String group, Supplier<T> read) throws TimeoutException, InterruptedException {
    Task task =
        reads.computeIfAbsent(
            group,
            name -> {
              CompletableFuture<T> done = new CompletableFuture<>();
              Task started = new Task("read of its cut", clock.instant(), DEADLINE, done);
              pool.execute(completing(done, read, () -> reads.remove(group, started)));
              return started;
            });
    Duration left = task.deadline().minus(Duration.between(task.since(), clock.instant()));
    if (left.isNegative() && !task.done().isDone()) {
      // a read already past its deadline: no caller waits on it again
      throw new TimeoutException();
    }
    return outcome(
        (CompletableFuture<T>) task.done(), Math.max(left.toMillis(), 1), TimeUnit.MILLISECONDS);
  }

  /** Each group with a task past its deadline, and what that task is. */
  public Map<String, String> stuck() {
    Instant now = clock.instant();
    Map<String, String> stuck = new TreeMap<>();
    for (Map<String, Task> tasks : List.of(rounds, reads)) {
      tasks.forEach(
          (group, task) -> {
            Duration running = Duration.between(task.since(), now);
            if (running.compareTo(task.deadline()) > 0) {
              stuck.merge(
                  group,
                  task.what()
                      + " under way since "
                      + task.since()
                      + ", past its deadline of "
                      + task.deadline(),
                  (a, b) -> a + "; " + b);
            }
          });
    }
    return stuck;
  }

  /** Drops the threads without waiting: a stuck read must not hold the service's shutdown. */
  @Override
  public void close() {
    pool.shutdownNow();
  }
}
