package io.icerepl.copier.copy;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bounds of one run and its first failure: the places among the steps in flight ({@link
 * PlanExecutor#FILES_IN_FLIGHT}) and the files copied whose manifest awaits a check ({@link
 * PlanExecutor#FILES_AWAITING_CHECK}). Planning blocks here while they are taken, so it never runs
 * far ahead of copying; once a step has failed, nothing more is admitted.
 */
final class StepAdmission {
  private final String table;
  private final int places;
  private final int awaitingCheck;
  private final Semaphore placesFree;
  private final Semaphore awaitingCheckFree;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  StepAdmission(String table, int places, int awaitingCheck) {
    this.table = table;
    this.places = places;
    this.awaitingCheck = awaitingCheck;
    this.placesFree = new Semaphore(places);
    this.awaitingCheckFree = new Semaphore(awaitingCheck);
  }

  int places() {
    return places;
  }

  int awaitingCheck() {
    return awaitingCheck;
  }

  /**
   * Waits for {@code permits} places; null once taken, else the failure of the run (an earlier
   * step's, or the interrupt that ended the wait, which fails the run) and none are held.
   */
  Throwable takePlaces(int permits) {
    return take(placesFree, permits);
  }

  void releasePlaces(int permits) {
    placesFree.release(permits);
  }

  /** As {@link #takePlaces}, of the files awaiting a check. */
  Throwable takeAwaitingCheck(int permits) {
    return take(awaitingCheckFree, permits);
  }

  void releaseAwaitingCheck(int permits) {
    awaitingCheckFree.release(permits);
  }

  /** A step failed: the run's failure, unless an earlier one is. */
  void fail(Throwable e) {
    failure.compareAndSet(null, unwrap(e));
  }

  private Throwable take(Semaphore semaphore, int permits) {
    try {
      semaphore.acquire(permits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure.compareAndSet(
          null,
          new UncheckedIOException(
              new InterruptedIOException(
                  "Cannot copy the files of table " + table + ": interrupted")));
      return failure.get();
    }
    Throwable failed = failure.get();
    if (failed != null) {
      semaphore.release(permits);
    }
    return failed;
  }

  /** Waits until no step is in flight. */
  void settle() {
    awaitingCheckFree.acquireUninterruptibly(awaitingCheck);
    awaitingCheckFree.release(awaitingCheck);
    placesFree.acquireUninterruptibly(places);
    placesFree.release(places);
  }

  /** Throws the run's failure, if any. */
  void throwIfFailed() {
    Throwable failed = failure.get();
    if (failed instanceof RuntimeException r) {
      throw r;
    }
    if (failed instanceof Error error) {
      throw error;
    }
    if (failed != null) {
      throw new CompletionException(failed);
    }
  }

  private static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
