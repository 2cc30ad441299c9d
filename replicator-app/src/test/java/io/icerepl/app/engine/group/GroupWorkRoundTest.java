package io.icerepl.app.engine.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A round a caller waits for ({@link GroupWork#roundAndWait}, a safe promotion's tagging of a fresh
 * cut): it runs on the group's pool, never on the caller's thread, after the group's round under
 * way, and a round that does not end (a replica that does not answer) leaves the caller at the
 * deadline, the round shown as stuck. Fails when the round runs on the caller's thread (the caller
 * hangs with it) or beside the group's round under way.
 */
class GroupWorkRoundTest {
  private final GroupWork work = new GroupWork(1, Clock.systemUTC());

  @Test
  void aRoundThatDoesNotEndLeavesItsCallerAtTheDeadline() {
    CountDownLatch never = new CountDownLatch(1);
    List<String> threads = new CopyOnWriteArrayList<>();
    try {
      assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () ->
              assertThatThrownBy(
                      () ->
                          work.roundAndWait(
                              "sales",
                              "safe promotion's tagging of a fresh cut",
                              Duration.ofMillis(300),
                              () -> {
                                threads.add(Thread.currentThread().getName());
                                awaitUninterruptibly(never); // deaf, as a read stuck on a network
                                return true;
                              }))
                  .isInstanceOf(TimeoutException.class));
      assertThat(threads).as("the round's thread").allMatch(name -> name.startsWith("group-"));
      assertThat(work.stuck())
          .as("the round goes on, shown as stuck")
          .containsKey("sales")
          .hasEntrySatisfying(
              "sales", what -> assertThat(what).contains("safe promotion's tagging"));
    } finally {
      never.countDown();
      work.close();
    }
  }

  @Test
  void aRoundWaitedForRunsAfterTheGroupsRoundUnderWay() throws Exception {
    CountDownLatch scheduledStarted = new CountDownLatch(1);
    CountDownLatch releaseScheduled = new CountDownLatch(1);
    List<String> order = new CopyOnWriteArrayList<>();
    try {
      work.round(
          "sales",
          "round",
          Duration.ofMinutes(1),
          () -> {
            order.add("scheduled started");
            scheduledStarted.countDown();
            awaitUninterruptibly(releaseScheduled);
            order.add("scheduled ended");
          });
      scheduledStarted.await();
      Thread releaser =
          new Thread(
              () -> {
                try {
                  Thread.sleep(200);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                releaseScheduled.countDown();
              });
      releaser.start();
      boolean tagged =
          work.roundAndWait(
              "sales",
              "safe promotion's tagging of a fresh cut",
              Duration.ofMinutes(1),
              () -> order.add("waited-for round"));

      assertThat(tagged).isTrue();
      assertThat(order).containsExactly("scheduled started", "scheduled ended", "waited-for round");
      releaser.join();
    } finally {
      releaseScheduled.countDown();
      work.close();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (latch.getCount() > 0) {
      try {
        latch.await();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
