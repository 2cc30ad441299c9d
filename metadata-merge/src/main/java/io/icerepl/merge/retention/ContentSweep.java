package io.icerepl.merge.retention;

import io.icerepl.merge.copyplan.DeleteFileKinds;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.manifest.ManifestEntry;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Finds the content files (data, position and equality deletes, deletion vectors) of candidate
 * manifests that no retained manifest names live.
 *
 * <p>Candidates are checked in batches of at most {@code batchSize} paths, each batch with one pass
 * over the retained manifests, so memory follows the batch size and one manifest's entries, not the
 * table's file count. A path is compared as written: manifests name files by their exact path.
 */
final class ContentSweep {
  private final ReplicaManifests manifests;
  private final Collection<String> retainedManifests;
  private final int batchSize;
  private final Map<String, FileKind> batch = new LinkedHashMap<>();
  private final Map<String, FileKind> unreachable = new LinkedHashMap<>();
  private boolean retainedRead;

  private ContentSweep(
      ReplicaManifests manifests, Collection<String> retainedManifests, int batchSize) {
    this.manifests = manifests;
    this.retainedManifests = retainedManifests;
    this.batchSize = batchSize;
  }

  /** The unreachable content files with their kind, each path once, in first-seen order. */
  static Map<String, FileKind> unreachable(
      ReplicaManifests manifests,
      Collection<String> candidateManifests,
      Collection<String> retainedManifests,
      int batchSize) {
    ContentSweep sweep = new ContentSweep(manifests, retainedManifests, batchSize);
    for (String manifest : candidateManifests) {
      manifests.forEachLiveFile(manifest, sweep::offer);
    }
    sweep.checkBatch();
    if (!sweep.retainedRead) {
      // No candidate file at all: still read every retained manifest once, so an unreadable one
      // fails the plan (and its manifest and list deletions) as it would with candidates.
      sweep.passOverRetained();
    }
    return sweep.unreachable;
  }

  private void offer(ManifestEntry file) {
    // A deletion-vector Puffin file is named by one entry per data file it covers; it is one
    // file to delete, so it is checked and listed once.
    if (unreachable.containsKey(file.filePath()) || batch.containsKey(file.filePath())) {
      return;
    }
    batch.put(file.filePath(), DeleteFileKinds.of(file.content(), file.fileFormat()));
    if (batch.size() >= batchSize) {
      checkBatch();
    }
  }

  /** Moves the batch paths no retained manifest names into the result. */
  private void checkBatch() {
    if (batch.isEmpty()) {
      return;
    }
    passOverRetained();
    unreachable.putAll(batch);
    batch.clear();
  }

  /**
   * Drops every batch path a retained manifest names live. A file moved by a manifest merge or
   * rewrite is named EXISTING by a new manifest; that still counts as reached. The pass reads every
   * retained manifest even once the batch is empty: an unreadable retained manifest means the
   * replica is damaged, and then nothing is deleted.
   */
  private void passOverRetained() {
    for (String manifest : retainedManifests) {
      manifests.forEachLiveFile(manifest, file -> batch.remove(file.filePath()));
    }
    retainedRead = true;
  }
}
