package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.icerepl.copier.store.ObjectStore.ObjectVersion;
import io.icerepl.copier.store.ObjectStore.VersionedObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What every store promises of {@link ObjectStore#replaceIf} and {@link ObjectStore#deleteIf}: a
 * write or a delete lands only on the very object it expects, so a writer that read an object,
 * paused, and wrote after another writer replaced it changes nothing. Each store's test extends
 * this with its own store.
 */
public abstract class ConditionalWriteContract {
  private static final int WRITERS = 8;
  private static final int ROUNDS = 200;

  /** The store under test. */
  protected abstract ObjectStore store();

  /** A path for an object named {@code name} in a place of its own for this test. */
  protected abstract String path(String name);

  @Test
  void anExpectedAbsenceCreatesOnlyWhereNothingIs() throws IOException {
    String state = path(".replicator-state.json");

    Optional<ObjectVersion> created = store().replaceIf(state, Optional.empty(), bytes("first"));
    Optional<ObjectVersion> again = store().replaceIf(state, Optional.empty(), bytes("second"));

    assertThat(created).isPresent();
    assertThat(again).isEmpty();
    assertThat(read(state)).isEqualTo("first");
  }

  @Test
  void theVersionReadIsTheOneAReplaceExpectsAndTheOneItReturns() throws IOException {
    String state = path(".replicator-state.json");
    ObjectVersion first = store().replaceIf(state, Optional.empty(), bytes("first")).orElseThrow();
    VersionedObject read = store().readVersioned(state).orElseThrow();

    Optional<ObjectVersion> second =
        store().replaceIf(state, Optional.of(read.version()), bytes("second"));

    assertThat(read.version()).isEqualTo(first);
    assertThat(new String(read.content(), StandardCharsets.UTF_8)).isEqualTo("first");
    assertThat(second).isPresent().isNotEqualTo(Optional.of(first));
    assertThat(store().readVersioned(state).orElseThrow().version()).isEqualTo(second.get());
    assertThat(read(state)).isEqualTo("second");
  }

  @Test
  void aWriterThatReadBeforeAnotherReplacedTheObjectChangesNothing() throws IOException {
    String hint = path("metadata/version-hint.text");
    ObjectVersion read = store().replaceIf(hint, Optional.empty(), bytes("2")).orElseThrow();
    store().replaceIf(hint, Optional.of(read), bytes("3")).orElseThrow();

    Optional<ObjectVersion> stale = store().replaceIf(hint, Optional.of(read), bytes("2-stale"));

    assertThat(stale).isEmpty();
    assertThat(read(hint)).isEqualTo("3");
  }

  @Test
  void aWriterWhoseObjectWasRemovedSinceChangesNothing() throws IOException {
    String state = path(".replicator-state.json");
    ObjectVersion read = store().replaceIf(state, Optional.empty(), bytes("first")).orElseThrow();
    store().delete(state);

    Optional<ObjectVersion> stale = store().replaceIf(state, Optional.of(read), bytes("stale"));

    assertThat(stale).isEmpty();
    assertThat(store().readVersioned(state)).isEmpty();
  }

  @Test
  void aDeleteAtTheCurrentVersionDeletes() throws IOException {
    String lease = path("locks/lease");
    ObjectVersion written = store().replaceIf(lease, Optional.empty(), bytes("held")).orElseThrow();

    boolean deleted = store().deleteIf(lease, written);

    assertThat(deleted).isTrue();
    assertThat(store().readVersioned(lease)).isEmpty();
  }

  @Test
  void aDeleteAtAStaleVersionLeavesTheObjectAsItIs() throws IOException {
    String lease = path("locks/lease");
    ObjectVersion read = store().replaceIf(lease, Optional.empty(), bytes("first")).orElseThrow();
    ObjectVersion now = store().replaceIf(lease, Optional.of(read), bytes("taken")).orElseThrow();

    boolean deleted = store().deleteIf(lease, read);

    assertThat(deleted).isFalse();
    assertThat(read(lease)).isEqualTo("taken");
    assertThat(store().readVersioned(lease).orElseThrow().version()).isEqualTo(now);
  }

  @Test
  void aDeleteOfAMissingObjectChangesNothing() throws IOException {
    String lease = path("locks/lease");
    ObjectVersion read = store().replaceIf(lease, Optional.empty(), bytes("gone")).orElseThrow();
    store().delete(lease);

    boolean deleted = store().deleteIf(lease, read);

    assertThat(store().readVersioned(lease)).isEmpty();
    assumeTrue(
        reportsADeleteOfAMissingObject(),
        "this store answers a conditional delete of a missing object as done");
    assertThat(deleted).isFalse();
  }

  /**
   * Whether {@link ObjectStore#deleteIf} of an object already gone answers false. A store that
   * answers it as done (the server reports success without a condition to fail) says false here.
   */
  protected boolean reportsADeleteOfAMissingObject() {
    return true;
  }

  /**
   * Many rounds, since a store that checks the condition apart from the write lets two writers
   * through only when their requests interleave between the check and the write.
   */
  @Test
  void ofWritersExpectingTheSameVersionExactlyOneWins() throws Exception {
    String state = path(".replicator-state.json");
    ObjectVersion read = store().replaceIf(state, Optional.empty(), bytes("start")).orElseThrow();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        ObjectVersion expected = read;
        String winner =
            race(round, pool, c -> store().replaceIf(state, Optional.of(expected), bytes(c)));

        assertThat(read(state)).as("round %d", round).isEqualTo(winner);
        read = store().readVersioned(state).orElseThrow().version();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void ofWritersCreatingTheSameObjectExactlyOneWins() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        String lease = path("locks/lease-" + round);
        String winner =
            race(round, pool, c -> store().replaceIf(lease, Optional.empty(), bytes(c)));

        assertThat(read(lease)).as("round %d", round).isEqualTo(winner);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @FunctionalInterface
  private interface Write {
    Optional<ObjectVersion> write(String content) throws IOException;
  }

  /**
   * Starts the writers together and returns the content of the only one that won. Contents are new
   * in every round: an S3 ETag is the content's MD5, so a writer rewriting what the object already
   * holds would leave the version the others expect.
   */
  private static String race(int round, ExecutorService pool, Write write) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Optional<ObjectVersion>>> results = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      String content = "round-" + round + "-writer-" + i;
      Callable<Optional<ObjectVersion>> one =
          () -> {
            go.await();
            return write.write(content);
          };
      results.add(pool.submit(one));
    }
    go.countDown();
    List<String> winners = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      if (results.get(i).get().isPresent()) {
        winners.add("round-" + round + "-writer-" + i);
      }
    }
    assertThat(winners).hasSize(1);
    return winners.get(0);
  }

  private String read(String path) throws IOException {
    return new String(store().readVersioned(path).orElseThrow().content(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
