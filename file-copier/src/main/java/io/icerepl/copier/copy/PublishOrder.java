package io.icerepl.copier.copy;

import io.icerepl.merge.copyplan.ManifestListCopy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each step of one run waits for, so that no replica file names one not yet in place: the
 * files being put right now (a manifest naming one another step puts waits for it), and the
 * manifests this run writes (a manifest list waits for them, and renders once their replica lengths
 * are known). Entries are futures of the steps' own I/O; this class does none.
 */
final class PublishOrder {
  private final Map<String, CompletableFuture<Void>> filesInFlight = new ConcurrentHashMap<>();

  /** Replica manifests this run writes, to their replica length once written. */
  private final Map<String, CompletableFuture<Long>> manifests = new ConcurrentHashMap<>();

  /**
   * Replica manifests this run writes, to their replica length once known: rendered, for a manifest
   * rendered ahead of its write, else written.
   */
  private final Map<String, CompletableFuture<Long>> manifestLengths = new ConcurrentHashMap<>();

  /** What a manifest list waits for: its manifests written, and their lengths known. */
  record ListInputs(
      CompletableFuture<Void> manifestsWritten, CompletableFuture<Void> lengthsKnown) {}

  boolean inFlight(String targetPath) {
    return filesInFlight.containsKey(targetPath);
  }

  /** A file of a manifest's step is being put at {@code targetPath} until {@code put} completes. */
  void started(String targetPath, CompletableFuture<Void> put) {
    filesInFlight.put(targetPath, put);
  }

  /** Called once {@code put} has completed. */
  void finished(String targetPath, CompletableFuture<Void> put) {
    filesInFlight.remove(targetPath, put);
  }

  /** The puts of {@code targetPaths} still in flight; a file not among them is in place already. */
  List<CompletableFuture<Void>> awaited(List<String> targetPaths) {
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    for (String awaited : targetPaths) {
      CompletableFuture<Void> put = filesInFlight.get(awaited);
      if (put != null) {
        puts.add(put);
      }
    }
    return puts;
  }

  /**
   * This run writes the manifest at {@code targetPath}: its replica length is {@code known} once
   * rendered or written, and {@code written} completes once it is in place.
   */
  void manifest(String targetPath, CompletableFuture<Long> known, CompletableFuture<Long> written) {
    manifestLengths.put(targetPath, known);
    manifests.put(targetPath, written);
  }

  /** The inputs of a manifest list: of the manifests it names, those this run writes. */
  ListInputs inputsOf(ManifestListCopy step) {
    List<CompletableFuture<Long>> before = new ArrayList<>();
    List<CompletableFuture<Long>> lengths = new ArrayList<>();
    for (String manifest : step.manifests()) {
      CompletableFuture<Long> length = manifests.get(manifest);
      if (length != null) {
        before.add(length);
        lengths.add(manifestLengths.get(manifest));
      }
    }
    return new ListInputs(
        CompletableFuture.allOf(before.toArray(CompletableFuture[]::new)),
        CompletableFuture.allOf(lengths.toArray(CompletableFuture[]::new)));
  }

  /** The replica length of a manifest this run writes, once known; null for any other. */
  CompletableFuture<Long> manifestLength(String targetPath) {
    return manifestLengths.get(targetPath);
  }
}
