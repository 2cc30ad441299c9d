package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.puffin.DeletionVectorRewriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts one file a manifest or the table metadata names in place, on the calling thread: copied byte
 * for byte (inside the store where it can), or, for a position delete file or a deletion vector,
 * rewritten with the replica's paths. Which files and when is the run's to decide.
 */
record FileCopier(
    String table,
    ObjectStore source,
    ObjectStore target,
    PathMapping mapping,
    RunProgress progress,
    WrittenFiles written) {
  private static final Logger LOG = LoggerFactory.getLogger(PlanExecutor.class);

  /**
   * Puts a file {@code step}'s manifest names in place.
   *
   * @param rewritten the step's delete files rewritten so far, by source path, which its manifest
   *     records
   */
  void put(FileCopy file, ManifestCopy step, Map<String, RewrittenFile> rewritten)
      throws IOException {
    switch (file.kind()) {
      case POSITION_DELETE, DELETION_VECTOR -> rewriteDelete(file, rewritten);
      default -> copy(file, step.sourceLengthsChecked(), "manifest " + step.manifest().source());
    }
  }

  /**
   * One copy, trusting the recorded length. Its length is checked against the recorded one where
   * the copy counted it, and where the planner did not find the source with that length (one
   * request after the copy, instead of one before): a copy inside the store copies the source
   * object as it is, so a source the planner checked needs nothing more.
   */
  void copy(FileCopy file, boolean sourceChecked, String namedBy) throws IOException {
    OptionalLong counted;
    try {
      counted = target.copyFrom(source, file.source(), file.target(), file.expectedSize());
    } catch (NoSuchFileException e) {
      throw CopyErrors.missing(table, CopyErrors.noun(file.kind()), file.source(), namedBy);
    }
    long length;
    if (counted.isPresent()) {
      length = counted.getAsLong();
    } else if (sourceChecked && file.expectedSize() >= 0) {
      length = file.expectedSize();
    } else {
      length = target.length(file.target()).orElse(-1);
    }
    if (file.expectedSize() >= 0 && length != file.expectedSize()) {
      written.add(file.target()); // no step records it, so the cleanup would not find it else
      throw CopyErrors.wrongLength(
          table, file.kind(), file.source(), length, file.expectedSize(), namedBy);
    }
    progress.copied(length);
    LOG.debug("{}: copied {} -> {} ({} bytes)", table, file.source(), file.target(), length);
  }

  private void rewriteDelete(FileCopy file, Map<String, RewrittenFile> rewritten)
      throws IOException {
    RewrittenFile[] result = new RewrittenFile[1];
    long length;
    try (SeekableInput in = source.openSeekable(file.source())) {
      length =
          target.write(
              file.target(),
              out ->
                  result[0] =
                      file.kind() == FileKind.DELETION_VECTOR
                          ? DeletionVectorRewriter.rewrite(in, out, file.source(), mapping::map)
                          : PositionDeleteRewriter.rewrite(
                              file.fileFormat(), in, out, file.source(), mapping::map));
    }
    rewritten.put(file.source(), result[0]);
    progress.rewritten(length);
    LOG.debug("{}: rewrote {} -> {}", table, file.source(), file.target());
  }

  /**
   * The replica length and offsets of a delete file a manifest names, null if copied as is: the
   * step's own rewrite, else read from the replica file another step or an earlier commit wrote.
   */
  RewrittenFile rewrittenDeleteFile(
      String sourcePath, ManifestCopy step, Map<String, RewrittenFile> rewritten) {
    RewrittenFile done = rewritten.get(sourcePath);
    if (done != null) {
      return done;
    }
    FileCopy elsewhere = step.rewrittenElsewhere().get(sourcePath);
    if (elsewhere == null) {
      return null;
    }
    return rewritten.computeIfAbsent(
        sourcePath,
        path -> {
          try (SeekableInput in = target.openSeekable(elsewhere.target())) {
            return elsewhere.kind() == FileKind.DELETION_VECTOR
                ? DeletionVectorRewriter.describe(in, elsewhere.target())
                : PositionDeleteRewriter.describe(elsewhere.fileFormat(), in, elsewhere.target());
          } catch (IOException e) {
            throw new UncheckedIOException("Cannot read replica file " + elsewhere.target(), e);
          }
        });
  }
}
