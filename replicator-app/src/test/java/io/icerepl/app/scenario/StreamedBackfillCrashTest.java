package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.FaultInjectingStore;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.RecordingStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backfill whose copy plan is streamed manifest by manifest, crashed at each of its writes in
 * turn: between any two manifests, inside one, at the manifest lists, the metadata file and the
 * version hint. Readers then find either no table or the whole replica, and the next run puts the
 * missing files in place without writing any file twice.
 */
class StreamedBackfillCrashTest {
  private static ExecutorService executor;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  /** The completed writes of each replica path: a create that found its file there is none. */
  private static Map<String, Integer> writes(RecordingStore store) {
    Map<String, Integer> writes = new HashMap<>();
    for (RecordingStore.Call call : store.ended("write", "createIfAbsent", "copyFrom")) {
      if (call.outcome() == RecordingStore.Outcome.DONE) {
        writes.merge(call.path(), 1, Integer::sum);
      }
    }
    return writes;
  }

  private static void replicate(ObjectStore target, String source, String replica) {
    TableReplicator.builder(new LocalObjectStore(), target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build()
        .replicate(source, replica, Optional.empty());
  }

  @Test
  void aCrashAtAnyWriteOfABackfillLeavesNoBrokenReplicaAndTheRerunWritesNoFileTwice()
      throws IOException {
    ScenarioTable source =
        Scenario.ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY.writeAt(
            dir.resolve("source").toUri().toString());
    assertThat(source.table().currentSnapshot().allManifests(source.table().io()))
        .as("manifests of the source's current snapshot")
        .hasSizeGreaterThan(3);
    RecordingStore clean = new RecordingStore();
    replicate(clean, source.location(), dir.resolve("clean").toUri().toString());
    int writes = writes(clean).values().stream().mapToInt(Integer::intValue).sum();
    ReplicaVerifier verifier = new ReplicaVerifier();

    for (int k = 1; k <= writes; k++) {
      String replica = dir.resolve("crashed-at-" + k).toUri().toString();
      AtomicInteger seen = new AtomicInteger();
      int crashAt = k;
      FaultInjectingStore faulty = new FaultInjectingStore(p -> seen.incrementAndGet() == crashAt);
      RecordingStore crashed = new RecordingStore(faulty);
      assertThatThrownBy(() -> replicate(crashed, source.location(), replica))
          .as("run crashed at write %d of %d", k, writes)
          .isInstanceOf(TableReplicationException.class)
          .hasMessageContaining("injected crash");

      if (Files.exists(dir.resolve("crashed-at-" + k + "/metadata/v1.metadata.json"))) {
        // readers look past a version hint the crash left behind
        ReplicaVerifier.failIfAny(replica, verifier.readProblems(source.expectations(), replica));
      } else {
        assertThatThrownBy(() -> verifier.load(replica))
            .as("a replica crashed at write %d before its metadata file", k)
            .isInstanceOf(NoSuchTableException.class);
      }

      RecordingStore rerun = new RecordingStore();
      replicate(rerun, source.location(), replica);
      verifier.verify(source, replica);
      Map<String, Integer> both = new ConcurrentHashMap<>(writes(crashed));
      writes(rerun).forEach((path, count) -> both.merge(path, count, Integer::sum));
      both.keySet()
          .removeIf(p -> p.endsWith("/version-hint.text") || p.endsWith("/.replicator-state.json"));
      assertThat(both)
          .as("writes per replica file of the run crashed at write %d and its rerun", k)
          .allSatisfy((path, count) -> assertThat(count).as(path).isEqualTo(1))
          .containsOnlyKeys(
              writes(clean).keySet().stream()
                  .filter(
                      p ->
                          !p.endsWith("/version-hint.text")
                              && !p.endsWith("/.replicator-state.json"))
                  .map(p -> p.replace("/clean/", "/crashed-at-" + crashAt + "/"))
                  .toList());
    }
  }
}
