package io.icerepl.app.engine.verify;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.DeleteFileKinds;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.verify.Reference;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every deletion vector a snapshot holds must name, as its {@code referenced_data_file}, a data
 * file live in that same snapshot: readers apply a vector to the data file whose path is that
 * string, so a vector naming any other (a removed file, another spelling of a path) deletes
 * nothing, and the rows it deleted read again. The delete manifests' vectors are remembered as
 * {@link TableVerifier} decodes them; the data manifests are searched only for the files a
 * snapshot's vectors name, and a search is reused by the next snapshot that shares the manifest.
 * Used by one verification, on the thread that walks the snapshots.
 */
final class DeletionVectorLiveness {
  private final ObjectStore target;

  /** Per delete manifest read: each live deletion vector's referenced data file, to its file. */
  private final Map<String, Map<String, String>> vectorsByManifest = new HashMap<>();

  /** Per data manifest searched for referenced data files: what was looked for, what is live. */
  private final Map<String, LiveSearch> liveSearches = new HashMap<>();

  /**
   * @param lookedFor the data files a data manifest was searched for
   * @param live those of them it names in live entries
   */
  private record LiveSearch(Set<String> lookedFor, Set<String> live) {}

  /**
   * @param checked how many vectors were checked (0 when a data manifest could not be read: it is
   *     reported already)
   * @param problems one line for each vector that names no live data file
   */
  record Outcome(long checked, List<String> problems) {}

  DeletionVectorLiveness(ObjectStore target) {
    this.target = target;
  }

  /**
   * Remembers the entry if it is a live deletion vector of the delete manifest {@code manifest}.
   */
  void remember(String manifest, ManifestEntry entry) {
    if (entry.live()
        && entry.referencedDataFile() != null
        && DeleteFileKinds.of(entry.content(), entry.fileFormat()) == FileKind.DELETION_VECTOR) {
      vectorsByManifest
          .computeIfAbsent(manifest, m -> new HashMap<>())
          .put(entry.referencedDataFile(), entry.filePath());
    }
  }

  /** Checks the vectors of the snapshot whose manifest list is {@code list}. */
  Outcome check(Reference list, List<ManifestListEntry> entries) {
    Map<String, String> vectors = new HashMap<>();
    for (ManifestListEntry entry : entries) {
      if (entry.content() != 0) {
        vectors.putAll(vectorsByManifest.getOrDefault(entry.manifestPath(), Map.of()));
      }
    }
    if (vectors.isEmpty()) {
      return new Outcome(0, List.of());
    }
    Set<String> notLive = new HashSet<>(vectors.keySet());
    for (ManifestListEntry entry : entries) {
      if (entry.content() != 0 || notLive.isEmpty()) {
        continue;
      }
      LiveSearch search = liveSearches.get(entry.manifestPath());
      if (search == null || !search.lookedFor().containsAll(notLive)) {
        Optional<LiveSearch> done = searchLive(entry.manifestPath(), Set.copyOf(notLive));
        if (done.isEmpty()) {
          return new Outcome(0, List.of());
        }
        search = done.get();
        liveSearches.put(entry.manifestPath(), search);
      }
      notLive.removeAll(search.live());
    }
    List<String> problems = new ArrayList<>();
    for (String dataFile : notLive.stream().sorted().toList()) {
      problems.add(
          Reference.of("deletion vector file", vectors.get(dataFile), list.namedBy())
              .problem(
                  "its referenced data file "
                      + dataFile
                      + " is not a live data file of "
                      + list.namedBy()
                      + " (manifest list "
                      + list.path()
                      + ")"));
    }
    return new Outcome(vectors.size(), problems);
  }

  /** Which of {@code lookFor} the data manifest names in live entries; empty if unreadable. */
  private Optional<LiveSearch> searchLive(String manifest, Set<String> lookFor) {
    Set<String> live = new HashSet<>();
    try (InputStream in = target.open(manifest)) {
      ManifestRewriter.forEachEntry(
          in,
          manifest.substring(manifest.lastIndexOf('/') + 1),
          entry -> {
            if (entry.live() && entry.content() == 0 && lookFor.contains(entry.filePath())) {
              live.add(entry.filePath());
            }
          });
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return Optional.of(new LiveSearch(lookFor, live));
  }
}
