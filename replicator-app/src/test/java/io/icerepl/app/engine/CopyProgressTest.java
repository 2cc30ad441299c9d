package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.store.LocalObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CopyProgressTest {
  @TempDir Path dir;

  @Test
  void progressCountsEveryFileAndEveryCopiedByteOfTheCommit() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 3);
    source.append("b", 4);
    List<CopyProgress> seen = new CopyOnWriteArrayList<>();
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      LocalObjectStore store = new LocalObjectStore();
      ReplicationSummary summary =
          TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
              .clock(Clock.systemUTC())
              .progress(seen::add)
              .build()
              .replicate(source.location, dir.resolve("replica").toString(), Optional.empty());

      CopyProgress last =
          seen.stream().max((a, b) -> Long.compare(a.filesDone(), b.filesDone())).orElseThrow();
      assertThat(seen).hasSize((int) (summary.filesCopied() + summary.filesRewritten()));
      assertThat(last.filesDone()).isEqualTo(last.filesTotal());
      assertThat(last.bytesTotal()).isEqualTo(summary.bytesCopied());
      assertThat(last.bytesPending()).isZero();
    } finally {
      executor.shutdownNow();
    }
  }
}
