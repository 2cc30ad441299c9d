package io.icerepl.app.engine.retention;

import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.copier.copy.HumanUnits;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.retention.UnreachableFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

  /**
   * Deletes {@code files} from {@code replica}, the lease checked before every request. Files
   * outside the replica's {@link LeasedReplica#domain domain} are kept, and said so: they may be
   * another table's.
   */
  void delete(LeasedReplica replica, UnreachableFiles files) throws IOException {
    String location = replica.location();
    ReplicaDomain domain = replica.domain();
    List<List<String>> stages = new ArrayList<>();
    for (List<String> stage : files.inDeletionOrder()) {
      List<String> outside = domain.outside(stage);
      if (outside.isEmpty()) {
        stages.add(stage);
        continue;
      }
      LOG.warn(
          "{}: keeping {} unreachable file(s) outside the replica's location, which may be another"
              + " table's: {}",
          location,
          outside.size(),
          outside.size() <= 10 ? outside : outside.subList(0, 10) + " ...");
      Set<String> kept = new HashSet<>(outside);
      stages.add(stage.stream().filter(p -> !kept.contains(p)).toList());
    }
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
