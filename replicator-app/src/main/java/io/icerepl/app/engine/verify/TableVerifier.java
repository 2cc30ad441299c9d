package io.icerepl.app.engine.verify;

import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStore.ObjectInfo;
import io.icerepl.merge.copyplan.DeleteFileKinds;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.head.SourceHead;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.puffin.DeletionVectorRewriter;
import io.icerepl.merge.state.ReplicaState;
import io.icerepl.merge.verify.MetadataReferences;
import io.icerepl.merge.verify.Reference;
import io.icerepl.merge.verify.ReplicaPrefixes;
import io.icerepl.merge.verify.SourceComparison;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves a replica complete, reading only: every snapshot's manifest list and manifests decode;
 * every file a snapshot or statistics entry names exists with its recorded length (and, for files
 * copied byte for byte, the source's checksum where both stores keep a comparable one); no path
 * leads out of the replica, not even inside a position delete file or a deletion vector, whose
 * referenced data files must exist too; every deletion vector a snapshot holds names a data file
 * live in that snapshot; and, with a source, every snapshot and ref the source holds is on the
 * replica unless the replica's own retention removed it.
 *
 * <p>Manifests are decoded one at a time and streamed, and the file checks wait in a queue of a few
 * per thread, so memory follows the largest manifest list, not the table. Only live entries (ADDED,
 * EXISTING) must have their files: a DELETED entry routinely names a file its table already
 * removed, so only its path is checked.
 */
public final class TableVerifier {
  private static final Logger LOG = LoggerFactory.getLogger(TableVerifier.class);
  private static final int CHECKS_QUEUED_PER_THREAD = 4;

  private final ObjectStore target;
  private final ExecutorService pool;
  private final int maxPending;
  private final long maxMetadataBytes;

  /**
   * @param target the replica's store
   * @param pool runs the file checks
   * @param threads the pool's threads, which bounds the checks waiting for one
   * @param maxMetadataBytes largest metadata file read
   */
  public TableVerifier(
      ObjectStore target, ExecutorService pool, int threads, long maxMetadataBytes) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    this.target = target;
    this.pool = pool;
    this.maxPending = threads * CHECKS_QUEUED_PER_THREAD;
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /**
   * @param location the replica table location
   * @param source the source to compare with, if any
   * @param problems receives each problem line as it is found (from one thread at a time)
   */
  public VerifyResult verify(
      String location, Optional<VerifySource> source, Consumer<String> problems) {
    Run run = new Run(location, source, problems);
    try {
      run.walk();
    } finally {
      run.awaitChecks();
    }
    LOG.info(
        "{}: verified, {} checked, {} problems", location, run.checked.get(), run.problems.get());
    return new VerifyResult(run.checked.get(), run.problems.get());
  }

  private final class Run {
    private final String location;
    private final Optional<VerifySource> source;
    private final Consumer<String> sink;
    private final AtomicLong checked = new AtomicLong();
    private final AtomicLong problems = new AtomicLong();
    private final Semaphore pending = new Semaphore(maxPending);
    private final Set<String> manifestsRead = new HashSet<>();
    private final Set<String> manifestLengthsChecked = new HashSet<>();
    private final Set<String> deletionVectorsRead = ConcurrentHashMap.newKeySet();
    private final DeletionVectorLiveness vectors = new DeletionVectorLiveness(target);

    private ReplicaPrefixes prefixes;
    private Optional<SourceChecksums> checksums = Optional.empty();

    Run(String location, Optional<VerifySource> source, Consumer<String> sink) {
      this.location = location;
      this.source = source;
      this.sink = sink;
    }

    void walk() {
      Optional<TableMetadata> read = replicaMetadata();
      if (read.isEmpty()) {
        return;
      }
      TableMetadata metadata = read.get();
      ReplicaState state = state();
      prefixes = ReplicaPrefixes.of(location, state);
      MetadataReferences.otherPaths(metadata).forEach(this::inside);
      source.ifPresent(s -> compareWith(s, metadata, state));

      for (Reference list : MetadataReferences.manifestLists(metadata)) {
        if (inside(list)) {
          readManifestList(list);
        }
      }
      for (Reference manifest : MetadataReferences.manifests(metadata)) {
        if (inside(manifest)) {
          readManifest(manifest);
        }
      }
      List<Reference> statistics;
      try {
        statistics = MetadataReferences.statistics(metadata);
      } catch (RuntimeException e) {
        problem("table metadata of " + location + ": " + e.getMessage());
        statistics = List.of();
      }
      for (Reference file : statistics) {
        if (inside(file)) {
          submit(file, () -> checkFile(file, true));
        }
      }
    }

    /**
     * The replica's current metadata as readers resolve it; nothing is written, not even a hint.
     */
    private Optional<TableMetadata> replicaMetadata() {
      String folder = ReplicaLayout.metadataFolder(location);
      String file = folder;
      try {
        List<String> names = target.list(folder);
        Optional<String> hint = Optional.empty();
        if (names.contains(TableLayout.VERSION_HINT)) {
          hint =
              Optional.of(
                  ReplicaFiles.readText(
                      target, TableLayout.join(folder, TableLayout.VERSION_HINT)));
        }
        Optional<String> name = SourceHead.resolve(folder, names, hint);
        if (name.isEmpty()) {
          problem("table " + location + ": its metadata folder " + folder + " holds no metadata");
          return Optional.empty();
        }
        file = TableLayout.join(folder, name.get());
        TableMetadata metadata = ReplicaFiles.readMetadata(target, file, maxMetadataBytes);
        checked.incrementAndGet();
        return Optional.of(metadata);
      } catch (IOException | RuntimeException e) {
        problem("table metadata " + file + ": cannot be read: " + e.getMessage());
        return Optional.empty();
      }
    }

    private ReplicaState state() {
      try {
        return new ReplicaFiles(target, maxMetadataBytes).state(location);
      } catch (IOException | RuntimeException e) {
        problem(
            "replicator state "
                + ReplicaLayout.stateFile(location)
                + ": cannot be read: "
                + e.getMessage());
        return ReplicaState.empty();
      }
    }

    private void compareWith(VerifySource from, TableMetadata replica, ReplicaState state) {
      TableMetadata sourceMetadata;
      try {
        sourceMetadata =
            ReplicaFiles.readMetadata(from.store(), from.metadataFile(), maxMetadataBytes);
      } catch (RuntimeException e) {
        problem(
            "source table metadata " + from.metadataFile() + ": cannot be read: " + e.getMessage());
        return;
      }
      SourceComparison.Result compared = SourceComparison.compare(sourceMetadata, replica, state);
      checked.addAndGet(compared.checked());
      compared.problems().forEach(this::problem);
      // replica paths back to source paths, to compare the checksums of byte-for-byte copies
      List<PathMapping.Prefix> back = new ArrayList<>();
      state.sourcePrefixes().forEach(p -> back.add(new PathMapping.Prefix(p.target(), p.source())));
      back.add(new PathMapping.Prefix(location, sourceMetadata.location()));
      checksums = Optional.of(new SourceChecksums(PathMapping.of(back), from.store()));
    }

    private void readManifestList(Reference list) {
      List<ManifestListEntry> entries;
      try (InputStream in = target.open(list.path())) {
        entries = ManifestListRewriter.read(in, fileName(list.path()));
      } catch (NoSuchFileException e) {
        problem(list.problem("does not exist"));
        return;
      } catch (IOException | RuntimeException e) {
        problem(list.problem("cannot be read: " + e.getMessage()));
        return;
      } finally {
        checked.incrementAndGet();
      }
      for (ManifestListEntry entry : entries) {
        Reference manifest =
            new Reference(
                "manifest",
                entry.manifestPath(),
                OptionalLong.of(entry.manifestLength()),
                "manifest list " + list.path());
        if (inside(manifest)) {
          readManifest(manifest);
        }
      }
      DeletionVectorLiveness.Outcome live = vectors.check(list, entries);
      checked.addAndGet(live.checked());
      live.problems().forEach(this::problem);
    }

    /**
     * Checks a manifest's length against what its list records (once per recorded length), then
     * decodes it (once), checking each entry's paths and each live entry's file.
     */
    private void readManifest(Reference manifest) {
      String path = manifest.path();
      String lengthKey = path + "\n" + manifest.length();
      if (!manifestLengthsChecked.add(lengthKey)) {
        return;
      }
      try {
        OptionalLong actual = target.length(path);
        checked.incrementAndGet();
        if (actual.isEmpty()) {
          problem(manifest.problem("does not exist"));
          return;
        }
        wrongLength(manifest, actual.getAsLong());
      } catch (IOException | RuntimeException e) {
        problem(manifest.problem("cannot be checked: " + e.getMessage()));
        return;
      }
      if (!manifestsRead.add(path)) {
        return;
      }
      String namedBy = "manifest " + path;
      try (InputStream in = target.open(path)) {
        ManifestRewriter.forEachEntry(
            in,
            fileName(path),
            entry -> {
              checkEntry(entry, namedBy);
              vectors.remember(path, entry);
            });
      } catch (IOException | RuntimeException e) {
        problem(manifest.problem("cannot be read: " + e.getMessage()));
      }
    }

    private void checkEntry(ManifestEntry entry, String namedBy) {
      FileKind kind = DeleteFileKinds.of(entry.content(), entry.fileFormat());
      Reference file =
          new Reference(
              noun(kind), entry.filePath(), OptionalLong.of(entry.fileSizeInBytes()), namedBy);
      boolean inside = inside(file);
      if (entry.referencedDataFile() != null) {
        inside(
            Reference.of(
                "referenced data file",
                entry.referencedDataFile(),
                noun(kind) + " " + entry.filePath()));
      }
      if (entry.filePathBound() != null) {
        // readers apply the delete file only to the data file its bounds name
        inside(
            Reference.of(
                "data file",
                entry.filePathBound(),
                "file_path bounds of " + noun(kind) + " " + entry.filePath()));
      }
      if (inside && entry.live()) {
        submit(
            file,
            () -> {
              if (checkFile(file, !kind.rewritten())) {
                checkPathsInside(file, kind, entry.fileFormat());
              }
            });
      }
    }

    /**
     * The data files a delete file names inside itself, which readers apply its deletes to: the
     * replicator rewrote each, so each must lie in the replica (and, for a deletion vector, exist).
     */
    private void checkPathsInside(Reference file, FileKind kind, String fileFormat) {
      if (kind == FileKind.POSITION_DELETE) {
        checkPositionDeletePaths(file, fileFormat);
      } else if (kind == FileKind.DELETION_VECTOR && deletionVectorsRead.add(file.path())) {
        // one Puffin file holds the vectors of many entries: its footer is read once
        checkReferencedDataFiles(file);
      }
    }

    /** Streams the file's file_path column; rows are sorted by it, so a path repeats in a run. */
    private void checkPositionDeletePaths(Reference file, String fileFormat) {
      String namedBy = "file_path of " + file.noun() + " " + file.path();
      String[] previous = {null};
      try (SeekableInput in = target.openSeekable(file.path())) {
        PositionDeleteRewriter.forEachFilePath(
            fileFormat,
            in,
            fileName(file.path()),
            path -> {
              if (!path.equals(previous[0])) {
                previous[0] = path;
                inside(Reference.of("data file", path, namedBy));
              }
            });
      } catch (IOException | RuntimeException e) {
        problem(file.problem("cannot be read: " + e.getMessage()));
      }
    }

    private void checkReferencedDataFiles(Reference file) {
      String namedBy = "referenced-data-file of " + file.noun() + " " + file.path();
      List<String> paths;
      try (SeekableInput in = target.openSeekable(file.path())) {
        paths = DeletionVectorRewriter.referencedDataFiles(in, fileName(file.path()));
      } catch (IOException | RuntimeException e) {
        problem(file.problem("cannot be read: " + e.getMessage()));
        return;
      }
      for (String path : paths) {
        Reference data = Reference.of("data file", path, namedBy);
        if (!inside(data)) {
          continue;
        }
        try {
          checked.incrementAndGet();
          if (target.length(path).isEmpty()) {
            problem(data.problem("does not exist"));
          }
        } catch (IOException e) {
          problem(data.problem("cannot be checked: " + e.getMessage()));
        }
      }
    }

    /**
     * The file exists with its recorded length; a byte-for-byte copy also has the source file's
     * checksums, for every algorithm both stores report.
     *
     * @return whether it exists with its recorded length
     */
    private boolean checkFile(Reference file, boolean copiedByteForByte) {
      Optional<ObjectInfo> info;
      try {
        info = target.info(file.path());
      } catch (IOException e) {
        problem(file.problem("cannot be checked: " + e.getMessage()));
        return false;
      } finally {
        checked.incrementAndGet();
      }
      if (info.isEmpty()) {
        problem(file.problem("does not exist"));
        return false;
      }
      if (wrongLength(file, info.get().length())) {
        return false;
      }
      if (copiedByteForByte) {
        ObjectInfo replica = info.get();
        checksums.ifPresent(c -> c.compare(file, replica).forEach(this::problem));
      }
      return true;
    }

    private boolean wrongLength(Reference file, long actual) {
      if (file.length().isPresent() && file.length().getAsLong() != actual) {
        problem(
            file.problem("has " + actual + " bytes, " + file.length().getAsLong() + " recorded"));
        return true;
      }
      return false;
    }

    private boolean inside(Reference reference) {
      checked.incrementAndGet();
      if (prefixes.contains(reference.path())) {
        return true;
      }
      problem(reference.problem(prefixes.outside()));
      return false;
    }

    private void submit(Reference file, Runnable check) {
      pending.acquireUninterruptibly();
      try {
        pool.execute(
            () -> {
              try {
                check.run();
              } catch (RuntimeException e) {
                problem(file.problem("cannot be checked: " + e.getMessage()));
              } finally {
                pending.release();
              }
            });
      } catch (RejectedExecutionException e) {
        pending.release();
        throw e;
      }
    }

    void awaitChecks() {
      pending.acquireUninterruptibly(maxPending);
      pending.release(maxPending);
    }

    private void problem(String line) {
      problems.incrementAndGet();
      synchronized (sink) {
        sink.accept(line);
      }
    }
  }

  private static String noun(FileKind kind) {
    return switch (kind) {
      case DATA -> "data file";
      case POSITION_DELETE -> "position delete file";
      case DELETION_VECTOR -> "deletion vector file";
      case EQUALITY_DELETE -> "equality delete file";
      default -> kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    };
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
