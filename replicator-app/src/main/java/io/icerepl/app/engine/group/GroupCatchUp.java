package io.icerepl.app.engine.group;

import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.GroupOperations;
import io.icerepl.app.engine.worker.ReplicaMaintenance;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableRunner;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The first half of a group's safe promotion (planned failover, the sources still reachable): every
 * table replicated up to what its source serves now, each run in the table's lane until the replica
 * is known current from a moment late enough that the cut tagged next covers every commit made
 * before the promotion was asked (a source file still settling is waited for), then verified
 * against its source.
 */
public record GroupCatchUp(
    ReplicationCoordinator coordinator,
    TableRunner runner,
    ReplicaMaintenance maintenance,
    GroupOperations groups,
    Clock clock) {
  /** How long a table may take to become known current before the promotion is refused. */
  static final Duration PATIENCE = Duration.ofMinutes(2);

  /** Why a table cannot be caught up: the promotion is refused, nothing promoted. */
  public static final class Refused extends RuntimeException {
    public Refused(String message) {
      super(message);
    }
  }

  /**
   * Catches every table up and verifies it.
   *
   * @throws Refused naming the table that did not become current in time, or whose replica does not
   *     verify, with its first problems
   */
  public void catchUp(GroupSettings group, List<TableKey> keys) throws InterruptedException {
    long from = coveringFrom(clock.millis(), group.clockSkew(), group.transactionWindow());
    // runs that begin from then on read every source head as of after the commits asked about
    long wait = from - clock.millis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
    for (TableKey key : keys) {
      long deadline = clock.millis() + PATIENCE.toMillis();
      while (!currentSince(key, from)) {
        Optional<Duration> again = inLane(key, "catch up for a safe promotion", runner::replicate);
        if (currentSince(key, from)) {
          break;
        }
        if (clock.millis() > deadline) {
          throw new Refused(
              "Cannot promote group "
                  + group.name()
                  + " safely: "
                  + key.table()
                  + " did not become current within "
                  + PATIENCE
                  + " (a source file still settling, or its source still being written)");
        }
        Thread.sleep(Math.max(50, again.map(Duration::toMillis).orElse(200L)));
      }
    }
    for (TableKey key : keys) {
      VerifyReport report = inLane(key, "verify for a safe promotion", maintenance::verify);
      if (report.problems() > 0) {
        throw new Refused(
            "Cannot promote group "
                + group.name()
                + " safely: the replica of "
                + key.table()
                + " has "
                + report.problems()
                + " problem(s) against its source, first: "
                + String.join("; ", report.firstProblems()));
      }
    }
  }

  /**
   * The moment from which every table must be known current for the group's next cut tag to cover
   * every commit made before {@code askedAtMs}: the tag's moment is the cut less the clock-skew
   * allowance, rounded down to its second and moved back out of the transaction window.
   */
  static long coveringFrom(long askedAtMs, Duration clockSkew, Duration transactionWindow) {
    long quietFrom = askedAtMs + transactionWindow.toMillis();
    long second = Math.floorDiv(quietFrom + 999, 1000L) * 1000L;
    return second + clockSkew.toMillis();
  }

  /** Whether the replica's own record says so: the fresh cut is computed from those records. */
  private boolean currentSince(TableKey key, long fromMs) {
    OptionalLong known = groups.knownCurrentFrom(key);
    return known.isPresent() && known.getAsLong() >= fromMs;
  }

  private <T> T inLane(TableKey key, String what, Function<TableKey, T> work) {
    return joined(coordinator.runInLane(key, what, work));
  }

  /** The lane's result; its failure as the work in the lane threw it. */
  static <T> T joined(CompletableFuture<T> inLane) {
    try {
      return inLane.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }
}
