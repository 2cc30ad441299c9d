package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.StatisticsCopy;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.ReplicaDomain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copier puts a file in place only inside the replica's domain, whatever the plan names: a step
 * whose target lies in the replica beside it fails before anything is written.
 */
class PlanExecutorPlacementTest {
  @TempDir Path dir;

  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void aStepPlacingAFileOutsideTheReplicaFailsAndWritesNothing() throws IOException {
    Path sourceFile = dir.resolve("src/a/metadata/stats.puffin");
    Files.createDirectories(sourceFile.getParent());
    Files.write(sourceFile, new byte[] {1, 2, 3});
    String replica = dir.resolve("dr/a").toString();
    Path beside = dir.resolve("dr/b/metadata/v2.metadata.json");
    ReplicaDomain.Placement placement =
        ReplicaDomain.of(replica).confine(PathMapping.of(dir.resolve("src/a").toString(), replica));
    LocalObjectStore store = new LocalObjectStore();
    PlanExecutor executor = new PlanExecutor(store, store, pool);

    try (ObjectStore.Lock lock = store.lock(replica)) {
      assertThatThrownBy(
              () ->
                  executor.execute(
                      "db.a",
                      sink ->
                          sink.accept(
                              new StatisticsCopy(
                                  List.of(
                                      FileCopy.of(
                                          FileKind.STATISTICS,
                                          sourceFile.toString(),
                                          beside.toString(),
                                          3)))),
                      placement,
                      (paths, why) -> assertThat(paths).as(why).isEmpty()))
          .isInstanceOf(BadInputException.class)
          .hasMessageContaining(
              "Cannot copy statistics file " + sourceFile + " of table db.a to " + beside);
    }
    assertThat(beside).doesNotExist();
  }
}
