package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.manifest.RewrittenFile;
import io.icerepl.merge.path.PathMapping;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites one manifest or manifest list with the replica's paths and lengths, on the calling
 * thread: rendered in memory ahead of its write, or streamed from the source to the replica. When
 * it may be written is the run's to decide.
 */
record ManifestWriter(
    String table,
    ObjectStore source,
    ObjectStore target,
    PathMapping mapping,
    PublishOrder order,
    RunProgress progress,
    WrittenFiles written) {
  private static final Logger LOG = LoggerFactory.getLogger(PlanExecutor.class);

  /** How a manifest or manifest list is rewritten from the source's bytes. */
  interface Rewrite {
    void rewrite(InputStream in, OutputStream out) throws IOException;
  }

  /**
   * The step's manifest rewrite.
   *
   * @param deleteFiles the replica length and offsets of a delete file it names, by source path,
   *     null for one copied as is
   */
  Rewrite manifest(ManifestCopy step, Function<String, RewrittenFile> deleteFiles) {
    String path = step.manifest().source();
    return (in, out) -> ManifestRewriter.rewrite(in, out, path, mapping::map, deleteFiles);
  }

  Rewrite manifestList(ManifestListCopy step) {
    String path = step.manifestList().source();
    return (in, out) ->
        ManifestListRewriter.rewrite(
            in, out, path, mapping::map, manifest -> replicaManifestLength(manifest, step));
  }

  /** The rewritten file in memory, to be written once what it names is in place. */
  byte[] render(FileCopy file, Rewrite rewrite) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = source.open(file.source())) {
      rewrite.rewrite(in, out);
    }
    return out.toByteArray();
  }

  /** Writes what {@link #render} returned; the replica file's length. */
  long writeRendered(FileCopy file, byte[] rendered) throws IOException {
    return written(file, target.write(file.target(), out -> out.write(rendered)));
  }

  /** The rewritten file streamed to the replica; its length. */
  long write(FileCopy file, Rewrite rewrite) throws IOException {
    try (InputStream in = source.open(file.source())) {
      return written(file, target.write(file.target(), out -> rewrite.rewrite(in, out)));
    }
  }

  private long written(FileCopy file, long length) {
    progress.rewritten(length);
    LOG.debug("{}: rewrote {} -> {}", table, file.source(), file.target());
    written.add(file.target());
    return length;
  }

  /** manifest_length must be the replica manifest's: object-store readers trust it. */
  private long replicaManifestLength(String sourceManifest, ManifestListCopy step) {
    String targetManifest = mapping.map(sourceManifest);
    CompletableFuture<Long> writtenHere = order.manifestLength(targetManifest);
    if (writtenHere != null) {
      return writtenHere.join();
    }
    Long length = step.replicaManifestLengths().get(targetManifest);
    if (length != null) {
      return length;
    }
    try {
      return target
          .length(targetManifest)
          .orElseThrow(() -> new IOException("replica manifest " + targetManifest + " is missing"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
