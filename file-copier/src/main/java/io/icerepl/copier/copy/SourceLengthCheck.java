package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * In a backfill, checks that the source holds every file copied byte for byte with the length its
 * manifest records, from listings of the source folders ({@link ListedFolders}: one per folder, or
 * one per shard of a folder's names when the first check of the folder names many), on a thread of
 * its own. The copies go ahead meanwhile; the manifest that names the files is written only when
 * their check has passed (the executor waits for it), so no replica file names an unchecked file,
 * and a failed check fails the commit and removes what it copied. A server-side copy cannot tell a
 * source shorter or longer than recorded, so the check is needed; but a listing walks its pages one
 * after another, and done before the copies it held back every copy of a folder for as long as it
 * took (about a millisecond per object on the embedded S3).
 *
 * <p>The listing is touched by the check's one thread only. A file its folder's listing does not
 * show with the recorded length is asked of the source, for the error naming what is wrong.
 */
final class SourceLengthCheck implements AutoCloseable {
  private final String table;
  private final ObjectStore source;
  private final ListedFolders listing;
  private final ExecutorService thread;

  SourceLengthCheck(String table, ObjectStore source, int maxListedObjects) {
    this.table = table;
    this.source = source;
    this.listing = new ListedFolders(source, maxListedObjects);
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "source-length-check");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Completes when every file holds its recorded length at the source; fails with the error naming
   * the first that does not (missing, or its length and the one {@code namedBy} records).
   */
  CompletableFuture<Void> check(List<FileCopy> files, String namedBy) {
    List<FileCopy> checked = List.copyOf(files);
    return CompletableFuture.runAsync(
        () -> {
          listing.shardBy(checked.stream().map(FileCopy::source).toList());
          for (FileCopy file : checked) {
            try {
              checkOne(file, namedBy);
            } catch (IOException e) {
              throw new UncheckedIOException(
                  "Cannot read the length of " + file.source() + " of table " + table, e);
            }
          }
        },
        thread);
  }

  private void checkOne(FileCopy file, String namedBy) throws IOException {
    if (listing.holds(file.source(), file.expectedSize()).orElse(false)) {
      return;
    }
    CopyErrors.checkAtSource(source, table, file, namedBy);
  }

  /** Checks already asked for still run; no new one is taken. */
  @Override
  public void close() {
    thread.shutdown();
  }
}
