package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.path.PathMapping;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The files one run wrote, to be removed should its commit fail. A manifest's files are recorded as
 * the positions of their entries among the source manifest's live entries, a few bits a file, and
 * found again from that manifest only when they have to be removed; manifests, manifest lists,
 * statistics files and files no step records by entry are recorded by path.
 */
final class WrittenFiles {
  /** The entries of one source manifest whose files a step wrote. */
  private record ManifestEntries(String sourceManifest, BitSet entries) {}

  private final ObjectStore source;
  private final PathMapping mapping;
  private final Set<String> paths = ConcurrentHashMap.newKeySet();
  private final Queue<ManifestEntries> entries = new ConcurrentLinkedQueue<>();

  WrittenFiles(ObjectStore source, PathMapping mapping) {
    this.source = source;
    this.mapping = mapping;
  }

  void add(String targetPath) {
    paths.add(targetPath);
  }

  /** The files of the {@code entries} of {@code sourceManifest}'s live entries were written. */
  void addEntries(String sourceManifest, BitSet entries) {
    this.entries.add(new ManifestEntries(sourceManifest, entries));
  }

  /**
   * Every file the run wrote, to be removed after {@code failure}; a source manifest that cannot be
   * read again is recorded in it.
   */
  List<String> all(RuntimeException failure) {
    List<String> all = new ArrayList<>();
    for (ManifestEntries files : entries) {
      List<ManifestEntry> live;
      try (InputStream in = source.open(files.sourceManifest())) {
        live = ManifestRewriter.readLiveFiles(in, files.sourceManifest());
      } catch (IOException | RuntimeException e) {
        failure.addSuppressed(e);
        continue;
      }
      files.entries().stream().forEach(i -> all.add(mapping.map(live.get(i).filePath())));
    }
    all.addAll(paths);
    return all;
  }
}
