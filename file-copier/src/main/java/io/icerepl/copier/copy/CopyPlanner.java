package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.DeleteFileKinds;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import io.icerepl.merge.copyplan.StatisticsCopy;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.merge.MergeResult.AddedSnapshot;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Expands a merge into a copy plan by reading the new snapshots' manifest lists and manifests, and
 * streams it to a {@link CopySink} one manifest at a time: each manifest with the files it names
 * that the replica lacks, each manifest list after its manifests, the statistics files last. Only
 * one manifest's files are held here at a time, so memory follows the manifests, not the files.
 * What the replica already holds is decided from the replica itself: a manifest list present at the
 * target is complete (everything under it was published first), a manifest named by the parent
 * snapshot's replica manifest list is reused with its recorded length, and a file present with the
 * expected length is not copied again. A manifest shared by several snapshots is planned once. So
 * the work of one commit follows what it adds, not the table's history.
 *
 * <p>A backfill (a replica without metadata yet, or an interrupted first run) asks about every file
 * of the table: there, whether a data or equality delete file is in place, and whether the source
 * holds it with its recorded length, comes from one listing of each folder on either side ({@link
 * ListedFolders}) instead of a HeadObject per file on each; the source's listing is walked beside
 * the copies, and a manifest waits for it ({@link SourceLengthCheck}). Later commits add few files
 * and ask the target per file, which costs less than listing a folder of the table's whole history;
 * they do not ask the source before copying: the copier checks the copy's length against the
 * recorded one.
 */
public final class CopyPlanner {
  private final ObjectStore source;
  private final ObjectStore target;

  private final int maxListedObjects;

  public CopyPlanner(ObjectStore source, ObjectStore target) {
    this(source, target, ListedFolders.DEFAULT_MAX_OBJECTS);
  }

  /**
   * @param maxListedObjects objects a backfill holds from its folder listings per side, at 8 bytes
   *     each, the files it copies counted too; folders beyond are asked per file
   */
  CopyPlanner(ObjectStore source, ObjectStore target, int maxListedObjects) {
    this.source = source;
    this.target = target;
    this.maxListedObjects = maxListedObjects;
  }

  /**
   * @param table the table's name for messages
   * @param merge the merge to expand
   * @param replica the replica's metadata before this commit, if any (its manifest lists tell which
   *     manifests are already in place)
   * @param mapping source → replica paths
   * @param sink receives the plan's steps in publish order
   */
  public void plan(
      String table,
      MergeResult merge,
      Optional<TableMetadata> replica,
      PathMapping mapping,
      CopySink sink) {
    try (Expansion expansion = new Expansion(table, replica, mapping, sink)) {
      expansion.expand(merge);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the replica commit of table " + table, e);
    }
  }

  private final class Expansion implements AutoCloseable {
    private final String table;
    private final Optional<TableMetadata> replica;
    private final PathMapping mapping;
    private final CopySink sink;
    private final Set<String> plannedManifests = new HashSet<>();
    private final Map<String, Long> replicaManifestLengths = new HashMap<>();
    private final Set<Long> parentsRead = new HashSet<>();

    /** In a backfill, the target's folders as listed; else null. */
    private final ListedFolders targetListing;

    /** In a backfill, the source's lengths checked beside the copies; else null. */
    private final SourceLengthCheck sourceCheck;

    Expansion(String table, Optional<TableMetadata> replica, PathMapping mapping, CopySink sink) {
      this.table = table;
      this.replica = replica;
      this.mapping = mapping;
      this.sink = sink;
      boolean backfill = replica.isEmpty();
      this.targetListing = backfill ? new ListedFolders(target, maxListedObjects) : null;
      this.sourceCheck = backfill ? new SourceLengthCheck(table, source, maxListedObjects) : null;
    }

    @Override
    public void close() {
      if (sourceCheck != null) {
        sourceCheck.close();
      }
    }

    void expand(MergeResult merge) throws IOException {
      for (AddedSnapshot snapshot : merge.addedSnapshots()) {
        if (snapshot.sourceManifestList() != null) {
          addManifestList(snapshot);
        } else {
          for (String manifest : snapshot.sourceManifests()) {
            addManifest(manifest, -1, "snapshot " + snapshot.snapshotId());
          }
        }
      }
      Map<String, FileCopy> statistics = new LinkedHashMap<>();
      for (FileCopy file : merge.statisticsFiles()) {
        if (!statistics.containsKey(file.target())
            && lacks(file, target.length(file.target()), "table metadata")) {
          statistics.put(file.target(), file);
        }
      }
      if (!statistics.isEmpty()) {
        sink.accept(new StatisticsCopy(new ArrayList<>(statistics.values())));
      }
    }

    private void addManifestList(AddedSnapshot snapshot) throws IOException {
      String sourceList = snapshot.sourceManifestList();
      String targetList = mapping.map(sourceList);
      if (target.length(targetList).isPresent()) {
        return; // published by an earlier, interrupted run, with everything it names
      }
      if (snapshot.parentSnapshotId() != null) {
        readReplicaManifestLengths(snapshot.parentSnapshotId());
      }
      List<ManifestListEntry> entries;
      try (InputStream in =
          openSource(sourceList, "manifest list of snapshot " + snapshot.snapshotId())) {
        entries = ManifestListRewriter.read(in, sourceList);
      }
      List<String> manifests = new ArrayList<>(entries.size());
      Map<String, Long> inPlace = new HashMap<>();
      for (ManifestListEntry entry : entries) {
        String targetManifest =
            addManifest(
                entry.manifestPath(), entry.manifestLength(), "manifest list " + sourceList);
        manifests.add(targetManifest);
        Long length = replicaManifestLengths.get(targetManifest);
        if (length != null) {
          inPlace.put(targetManifest, length);
        }
      }
      sink.accept(
          new ManifestListCopy(
              FileCopy.of(FileKind.MANIFEST_LIST, sourceList, targetList, -1), manifests, inPlace));
    }

    /** The replica's manifest list of a snapshot it holds names manifests already in place. */
    private void readReplicaManifestLengths(long parentId) throws IOException {
      if (replica.isEmpty() || !parentsRead.add(parentId)) {
        return;
      }
      Optional<String> list = replica.get().snapshot(parentId).flatMap(Snapshot::manifestList);
      if (list.isEmpty()) {
        return;
      }
      InputStream in;
      try {
        in = target.open(list.get());
      } catch (NoSuchFileException e) {
        return; // asked, not looked up first: one request in the common case, where it is there
      }
      try (in) {
        for (ManifestListEntry entry : ManifestListRewriter.read(in, list.get())) {
          replicaManifestLengths.put(entry.manifestPath(), entry.manifestLength());
        }
      }
    }

    /** Plans the manifest and its files unless it is in place or planned; its replica path. */
    private String addManifest(String sourceManifest, long length, String namedBy)
        throws IOException {
      String targetManifest = mapping.map(sourceManifest);
      if (replicaManifestLengths.containsKey(targetManifest)
          || plannedManifests.contains(targetManifest)) {
        return targetManifest;
      }
      OptionalLong existing = target.length(targetManifest);
      if (existing.isPresent()) {
        replicaManifestLengths.put(targetManifest, existing.getAsLong());
        return targetManifest;
      }
      FileCopy manifest = FileCopy.of(FileKind.MANIFEST, sourceManifest, targetManifest, length);
      if (targetListing != null || length < 0) {
        CopyErrors.checkAtSource(source, table, manifest, namedBy);
        plannedManifests.add(targetManifest);
        addManifestFiles(manifest, readLiveFiles(manifest));
      } else {
        plannedManifests.add(targetManifest);
        addManifestFiles(manifest, readCountedLiveFiles(manifest, namedBy));
      }
      return targetManifest;
    }

    private List<ManifestEntry> readLiveFiles(FileCopy manifest) throws IOException {
      try (InputStream in = openSource(manifest.source(), "manifest")) {
        return ManifestRewriter.readLiveFiles(in, manifest.source());
      }
    }

    /**
     * A later commit's manifest, its length checked by reading it whole instead of asking for it
     * first: one request instead of two. A manifest shorter or longer than recorded is refused for
     * its length, as a look-up would have refused it, even when what was read decodes.
     */
    private List<ManifestEntry> readCountedLiveFiles(FileCopy manifest, String namedBy)
        throws IOException {
      InputStream opened;
      try {
        opened = source.open(manifest.source());
      } catch (NoSuchFileException e) {
        throw missing("manifest", manifest.source(), namedBy);
      }
      try (CountingInputStream in = new CountingInputStream(opened)) {
        List<ManifestEntry> live;
        try {
          live = ManifestRewriter.readLiveFiles(in, manifest.source());
        } catch (RuntimeException e) {
          // a cut manifest may fail to decode: its length is what names the fault
          try {
            in.transferTo(OutputStream.nullOutputStream());
          } catch (IOException drain) {
            e.addSuppressed(drain);
            throw e;
          }
          if (in.count() != manifest.expectedSize()) {
            BadInputException wrong =
                CopyErrors.wrongLength(
                    table,
                    FileKind.MANIFEST,
                    manifest.source(),
                    in.count(),
                    manifest.expectedSize(),
                    namedBy);
            wrong.addSuppressed(e);
            throw wrong;
          }
          throw e;
        }
        in.transferTo(OutputStream.nullOutputStream());
        checkLength(
            FileKind.MANIFEST, manifest.source(), in.count(), manifest.expectedSize(), namedBy);
        return live;
      }
    }

    private void addManifestFiles(FileCopy manifest, List<ManifestEntry> live) throws IOException {
      String namedBy = "manifest " + manifest.source();
      Map<String, FileCopy> files = new LinkedHashMap<>();
      BitSet copiedEntries = new BitSet();
      List<String> awaited = new ArrayList<>();
      List<FileCopy> unchecked = new ArrayList<>();
      Map<String, FileCopy> rewrittenElsewhere = new HashMap<>();
      for (int i = 0; i < live.size(); i++) {
        ManifestEntry entry = live.get(i);
        FileKind kind = DeleteFileKinds.of(entry.content(), entry.fileFormat());
        FileCopy file =
            new FileCopy(
                kind,
                entry.filePath(),
                mapping.map(entry.filePath()),
                entry.fileSizeInBytes(),
                entry.fileFormat());
        if (files.containsKey(file.target())) {
          continue;
        }
        if (sink.inFlight(file.target())) {
          awaited.add(file.target());
          if (kind.rewritten()) {
            rewrittenElsewhere.put(file.source(), file);
          }
          continue;
        }
        if (!kind.rewritten()) {
          if (lacksCopy(file)) {
            files.put(file.target(), file);
            copiedEntries.set(i);
            if (sourceCheck != null) {
              unchecked.add(file);
            }
          }
          continue;
        }
        OptionalLong atTarget = target.length(file.target());
        if (atTarget.isPresent()) {
          rewrittenElsewhere.put(file.source(), file);
        } else if (lacks(file, atTarget, namedBy)) {
          files.put(file.target(), file);
          copiedEntries.set(i);
        }
      }
      ManifestCopy step =
          new ManifestCopy(
              manifest,
              new ArrayList<>(files.values()),
              copiedEntries,
              awaited,
              rewrittenElsewhere,
              sourceCheck != null);
      if (unchecked.isEmpty()) {
        sink.accept(step);
      } else {
        sink.accept(step, sourceCheck.check(unchecked, namedBy));
      }
    }

    /**
     * Whether the replica lacks a file copied byte for byte. In a backfill the target's folder
     * listing answers, and the source's length is checked beside the copy ({@link
     * SourceLengthCheck}); later commits ask the target, and leave the source to the copy.
     */
    private boolean lacksCopy(FileCopy file) throws IOException {
      Optional<Boolean> listed =
          targetListing == null
              ? Optional.empty()
              : targetListing.holds(file.target(), file.expectedSize());
      if (listed.isEmpty()) {
        OptionalLong atTarget = target.length(file.target());
        if (atTarget.isPresent()
            && (file.expectedSize() < 0 || atTarget.getAsLong() == file.expectedSize())) {
          return false;
        }
      } else if (listed.get()) {
        return false;
      }
      if (targetListing != null) {
        targetListing.added(file.target(), file.expectedSize());
      }
      return true;
    }

    /**
     * Whether the replica lacks a file, checking that the source holds it with the length its
     * parent records.
     */
    private boolean lacks(FileCopy file, OptionalLong atTarget, String namedBy) throws IOException {
      if (atTarget.isPresent()
          && (file.kind().rewritten()
              || file.expectedSize() < 0
              || atTarget.getAsLong() == file.expectedSize())) {
        return false;
      }
      CopyErrors.checkAtSource(source, table, file, namedBy);
      return true;
    }

    /**
     * A file shorter or longer than its parent records is refused from its length alone: a manifest
     * cut after a complete Avro block still decodes, and readers trust recorded lengths.
     */
    private void checkLength(
        FileKind kind, String path, long actual, long recorded, String namedBy) {
      if (recorded >= 0 && actual != recorded) {
        throw CopyErrors.wrongLength(table, kind, path, actual, recorded, namedBy);
      }
    }

    private InputStream openSource(String path, String noun) throws IOException {
      try {
        return source.open(path);
      } catch (NoSuchFileException e) {
        throw missing(noun, path, "table metadata");
      }
    }

    private MissingFileException missing(String noun, String path, String namedBy) {
      return CopyErrors.missing(table, noun, path, namedBy);
    }
  }
}
