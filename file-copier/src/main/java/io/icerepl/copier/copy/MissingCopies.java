package io.icerepl.copier.copy;

import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.DeleteFileKinds;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.path.PathMapping;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The files of a backfill that are copied byte for byte (data and equality delete files) and that
 * the target does not hold yet with their recorded length, streamed one manifest at a time as the
 * {@link CopyPlanner} reads them: memory follows one manifest, not the table. Whether the target
 * holds a file comes from one listing per folder ({@link ListedFolders}), as in the planner's
 * backfill.
 *
 * <p>This answers what a copy outside this process (S3 Batch Operations) could do before the
 * ordinary pass; the ordinary pass still decides, file by file, what is left.
 */
public final class MissingCopies {
  private final ObjectStore source;
  private final ObjectStore target;

  public MissingCopies(ObjectStore source, ObjectStore target) {
    this.source = source;
    this.target = target;
  }

  /**
   * Hands each byte-for-byte file the merge's snapshots reach through live entries, and that the
   * target lacks with its recorded length, to {@code each}: once where its folder could be listed
   * (a file of a folder asked per file may come twice, and is then copied twice). Unreadable
   * metadata is left to the ordinary pass, which names it: a manifest or list missing at the source
   * is skipped here.
   *
   * @throws UncheckedIOException when the source or the target cannot be read
   */
  public void forEach(
      String table, MergeResult merge, PathMapping mapping, Consumer<FileCopy> each) {
    ListedFolders listing = new ListedFolders(target, ListedFolders.DEFAULT_MAX_OBJECTS);
    Set<String> manifestsRead = new HashSet<>();
    try {
      for (MergeResult.AddedSnapshot snapshot : merge.addedSnapshots()) {
        List<String> manifests =
            snapshot.sourceManifestList() == null
                ? snapshot.sourceManifests()
                : manifestsOf(snapshot.sourceManifestList());
        for (String manifest : manifests) {
          if (manifestsRead.add(manifest)) {
            filesOf(manifest, mapping, listing, each);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list the files to copy of table " + table + ": " + IoErrors.describe(e), e);
    }
  }

  private List<String> manifestsOf(String manifestList) throws IOException {
    Optional<InputStream> opened = openSource(manifestList);
    if (opened.isEmpty()) {
      return List.of();
    }
    try (InputStream in = opened.get()) {
      return ManifestListRewriter.read(in, manifestList).stream()
          .map(ManifestListEntry::manifestPath)
          .toList();
    }
  }

  private void filesOf(
      String manifest, PathMapping mapping, ListedFolders listing, Consumer<FileCopy> each)
      throws IOException {
    Optional<InputStream> opened = openSource(manifest);
    if (opened.isEmpty()) {
      return;
    }
    try (InputStream in = opened.get()) {
      for (var entry : ManifestRewriter.readLiveFiles(in, manifest)) {
        FileKind kind = DeleteFileKinds.of(entry.content(), entry.fileFormat());
        if (kind.rewritten() || !mapping.covers(entry.filePath())) {
          continue; // rewritten here, or an error the ordinary pass reports
        }
        FileCopy file =
            new FileCopy(
                kind,
                entry.filePath(),
                mapping.map(entry.filePath()),
                entry.fileSizeInBytes(),
                entry.fileFormat());
        if (!holds(listing, file)) {
          // counted as present from now on, so a file several manifests name is handed on once
          listing.added(file.target(), file.expectedSize());
          each.accept(file);
        }
      }
    }
  }

  private boolean holds(ListedFolders listing, FileCopy file) throws IOException {
    Optional<Boolean> listed = listing.holds(file.target(), file.expectedSize());
    if (listed.isPresent()) {
      return listed.get();
    }
    var atTarget = target.length(file.target());
    return atTarget.isPresent() && atTarget.getAsLong() == file.expectedSize();
  }

  private Optional<InputStream> openSource(String path) throws IOException {
    try {
      return Optional.of(source.open(path));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }
}
