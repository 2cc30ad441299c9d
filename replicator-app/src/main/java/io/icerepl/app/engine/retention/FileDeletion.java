package io.icerepl.app.engine.retention;

import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.copier.copy.HumanUnits;
import io.icerepl.merge.retention.UnreachableFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes an expiry's unreachable files stage by stage (contents, manifests, manifest lists), a
 * thousand at a time so an S3 store sends one request per thousand, telling its listener after each
 * request and logging a line every few seconds for runs without a terminal.
 */
final class FileDeletion {
  private static final Logger LOG = LoggerFactory.getLogger(FileDeletion.class);

  /** As many as one S3 DeleteObjects request takes. */
  private static final int PER_REQUEST = 1_000;

  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final DeletionProgress.Listener listener;

  FileDeletion(DeletionProgress.Listener listener) {
    this.listener = listener;
  }

  /** Deletes {@code files} from {@code replica}, the lease checked before every request. */
  void delete(LeasedReplica replica, UnreachableFiles files) throws IOException {
    String location = replica.location();
    List<List<String>> stages = files.inDeletionOrder();
    long total = stages.stream().mapToLong(List::size).sum();
    if (total == 0) {
      return;
    }
    long start = System.nanoTime();
    long lastLog = start;
    long done = 0;
    for (List<String> stage : stages) {
      for (int from = 0; from < stage.size(); from += PER_REQUEST) {
        List<String> request = stage.subList(from, Math.min(stage.size(), from + PER_REQUEST));
        replica.deleteAll(request, "delete unreachable files");
        if (LOG.isDebugEnabled()) {
          request.forEach(path -> LOG.debug("{}: deleted {}", location, path));
        }
        done += request.size();
        long now = System.nanoTime();
        DeletionProgress progress =
            new DeletionProgress(location, done, total, Duration.ofNanos(now - start));
        listener.onProgress(progress);
        if (now - lastLog > LOG_INTERVAL_NANOS && done < total) {
          lastLog = now;
          LOG.info(
              "{}: deleted {}/{} files, {} files/s, {}",
              location,
              done,
              total,
              Math.round(progress.filesPerSecond()),
              progress
                  .eta()
                  .map(t -> "about " + HumanUnits.time(t) + " left")
                  .orElse("time left unknown"));
        }
      }
    }
  }
}
