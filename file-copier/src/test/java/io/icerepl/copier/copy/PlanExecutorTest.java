package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.ReplicaDomain;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor puts every file of a streamed plan in place on local disk, records the replica
 * files' own lengths in what it rewrites, and after a failure hands every file it wrote to the
 * cleanup, the replica left as it was.
 */
class PlanExecutorTest {
  private static final String TABLE = "db.t";

  @TempDir Path dir;

  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private final LocalObjectStore store = new LocalObjectStore();
  private IcebergSource source;
  private String replica;
  private PathMapping mapping;
  private ReplicaDomain.Placement placement;

  @BeforeEach
  void createSource() {
    source = new IcebergSource(dir);
    replica = dir.resolve("replica/t").toString();
    mapping = PathMapping.of(source.location(), replica);
    placement = ReplicaDomain.of(replica).confine(mapping);
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void everyFileIsInPlaceAndEveryRecordedLengthIsTheReplicaFilesOwn() throws IOException {
    List<String> data = new ArrayList<>(source.append(100, 200));
    data.addAll(source.append(300));
    MergeResult merge = source.backfill();
    ConcurrentLinkedQueue<CopyProgress> progress = new ConcurrentLinkedQueue<>();

    PlanExecutor.Outcome outcome =
        execute(
            new PlanExecutor(store, store, pool, progress::add),
            sink ->
                new CopyPlanner(store, store).plan(TABLE, merge, Optional.empty(), mapping, sink),
            (paths, why) -> {
              throw new AssertionError("nothing failed, yet asked to " + why);
            });

    for (String file : data) {
      assertThat(Path.of(mapping.map(file))).hasSameBinaryContentAs(Path.of(file));
    }
    List<ManifestListEntry> manifests = readList(mapping.map(source.currentManifestList()));
    assertThat(manifests).hasSize(2);
    List<String> named = new ArrayList<>();
    for (ManifestListEntry manifest : manifests) {
      assertThat(manifest.manifestPath()).startsWith(replica);
      assertThat(manifest.manifestLength()).isEqualTo(Files.size(Path.of(manifest.manifestPath())));
      readManifest(manifest.manifestPath()).forEach(entry -> named.add(entry.filePath()));
    }
    assertThat(named).containsExactlyInAnyOrderElementsOf(data.stream().map(mapping::map).toList());
    assertThat(outcome)
        .isEqualTo(new PlanExecutor.Outcome(3, 600, 4, outcome.bytesWritten()))
        .extracting(PlanExecutor.Outcome::bytesWritten)
        .isEqualTo(replicaBytes() - 600);
    assertThat(progress).allMatch(p -> p.table().equals(TABLE));
    assertThat(progress.stream().mapToLong(CopyProgress::filesDone).max()).hasValue(7);
  }

  @Test
  void aFileMissingAtTheSourceFailsTheRunAndTheCleanupIsGivenEveryFileItWrote() throws IOException {
    List<String> data = source.append(100, 200, 300);
    MergeResult merge = source.backfill();
    Files.delete(Path.of(data.get(1)));
    List<String> removed = new ArrayList<>();

    assertThatThrownBy(
            () ->
                execute(
                    new PlanExecutor(store, store, pool),
                    sink ->
                        new CopyPlanner(store, store)
                            .plan(TABLE, merge, Optional.empty(), mapping, sink),
                    (paths, why) -> {
                      removed.addAll(paths);
                      store.deleteAll(paths);
                    }))
        .isInstanceOf(MissingFileException.class)
        .hasMessageContaining("Cannot replicate table db.t: data file " + data.get(1));

    assertThat(removed).contains(mapping.map(data.get(0)), mapping.map(data.get(2)));
    assertThat(filesUnder(replica)).isEmpty();
  }

  @Test
  void aCleanupThatRefusesIsThrownWithTheRunsFailureSuppressedInIt() {
    List<String> data = source.append(100);
    MergeResult merge = source.backfill();
    IcebergSource.write(data.get(0), new byte[50]);

    assertThatThrownBy(
            () ->
                execute(
                    new PlanExecutor(store, store, pool),
                    sink ->
                        new CopyPlanner(store, store)
                            .plan(TABLE, merge, Optional.empty(), mapping, sink),
                    (paths, why) -> {
                      throw new IllegalStateException("Cannot " + why + ": taken over");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot remove the files of a failed commit: taken over")
        .satisfies(
            e ->
                assertThat(e.getSuppressed())
                    .singleElement()
                    .isInstanceOf(BadInputException.class)
                    .extracting(Throwable::getMessage)
                    .asString()
                    .contains("is 50 bytes but its manifest"));
  }

  @Test
  void aManifestWaitsForItsCheckAndAFailedCheckFailsTheRunBeforeTheManifestIsWritten()
      throws IOException {
    List<String> data = source.append(100, 200);
    source.metadata();
    String manifest = source.addedManifests().get(0);
    List<FileCopy> files = new ArrayList<>();
    for (String file : data) {
      files.add(FileCopy.of(FileKind.DATA, file, mapping.map(file), Files.size(Path.of(file))));
    }
    BitSet entries = new BitSet();
    entries.set(0, 2);
    ManifestCopy step =
        new ManifestCopy(
            FileCopy.of(
                FileKind.MANIFEST, manifest, mapping.map(manifest), Files.size(Path.of(manifest))),
            files,
            entries,
            List.of(),
            Map.of(),
            false);
    CompletableFuture<Void> check = new CompletableFuture<>();
    BadInputException checkFailed = new BadInputException("Cannot replicate table db.t: checked");
    List<String> removed = new ArrayList<>();

    assertThatThrownBy(
            () ->
                execute(
                    new PlanExecutor(store, store, pool),
                    sink -> {
                      sink.accept(step, check);
                      check.completeExceptionally(checkFailed);
                    },
                    (paths, why) -> removed.addAll(paths)))
        .isSameAs(checkFailed);

    assertThat(Path.of(mapping.map(manifest))).doesNotExist();
    assertThat(removed)
        .containsExactlyInAnyOrder(mapping.map(data.get(0)), mapping.map(data.get(1)));
  }

  private PlanExecutor.Outcome execute(
      PlanExecutor executor, Consumer<CopySink> planning, PlanExecutor.Cleanup cleanup)
      throws IOException {
    try (ObjectStore.Lock lock = store.lock(replica)) {
      return executor.execute(TABLE, planning, placement, cleanup);
    }
  }

  private List<ManifestListEntry> readList(String path) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      return ManifestListRewriter.read(in, path);
    }
  }

  private List<ManifestEntry> readManifest(String path) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      return ManifestRewriter.readLiveFiles(in, path);
    }
  }

  private List<Path> filesUnder(String folder) throws IOException {
    if (!Files.exists(Path.of(folder))) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(Path.of(folder))) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  private long replicaBytes() throws IOException {
    long bytes = 0;
    for (Path file : filesUnder(replica)) {
      bytes += Files.size(file);
    }
    return bytes;
  }
}
