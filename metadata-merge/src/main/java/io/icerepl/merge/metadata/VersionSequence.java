package io.icerepl.merge.metadata;

import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.json.TableMetadata;
import io.icerepl.merge.json.TableMetadata.LogEntry;
import io.icerepl.merge.head.MetadataFileNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which source metadata versions to apply, in the source's order, after the one the replica holds.
 * The source's {@code metadata-log} is the order; a replicated file missing from a log long enough
 * to hold it means the source was rewound or replaced.
 */
public final class VersionSequence {
  private VersionSequence() {}

  /**
   * @param head the source's current metadata
   * @param headFile where it was read
   * @param lastReplicated the source file (or its name) the replica was last built from, absent on
   *     backfill
   * @param lastReplicatedUpdatedMs that file's {@code last-updated-ms}, if the replica recorded it
   * @param coalesce apply only the head, skipping intermediate versions
   * @return source metadata files to apply, oldest first; empty when the replica is up to date
   */
  public static List<String> toApply(
      TableMetadata head,
      String headFile,
      Optional<String> lastReplicated,
      Optional<Long> lastReplicatedUpdatedMs,
      boolean coalesce) {
    if (lastReplicated.isEmpty()) {
      return List.of(headFile); // backfill starts from the current metadata
    }
    // Metadata file names are unique within a table (version numbers, uuids): compare names.
    String last = MetadataFileNames.fileName(lastReplicated.get());
    if (last.equals(MetadataFileNames.fileName(headFile))) {
      return List.of();
    }
    List<LogEntry> log = head.metadataLog();
    int index = -1;
    for (int i = 0; i < log.size(); i++) {
      if (MetadataFileNames.fileName(log.get(i).metadataFile()).equals(last)) {
        index = i;
      }
    }
    List<String> result = new ArrayList<>();
    if (index >= 0) {
      if (!coalesce) {
        log.subList(index + 1, log.size()).forEach(e -> result.add(e.metadataFile()));
      }
    } else if (logTooShort(head, log, lastReplicatedUpdatedMs)) {
      if (!coalesce) {
        long after = lastReplicatedUpdatedMs.orElse(Long.MIN_VALUE);
        log.stream().filter(e -> e.timestampMs() > after).forEach(e -> result.add(e.metadataFile()));
      }
    } else {
      throw new ConflictException(
          "Cannot replicate table metadata " + headFile + ": the last replicated source file "
              + lastReplicated.get() + " is not in its metadata-log; the source was rewound or"
              + " replaced");
    }
    result.add(headFile);
    return result;
  }

  /**
   * A log that dropped its oldest entries cannot say whether it once held the file: it can when
   * it starts after that file was written.
   */
  private static boolean logTooShort(TableMetadata head, List<LogEntry> log, Optional<Long> lastUpdatedMs) {
    int max = ReplicaCommits.previousVersionsMax(head);
    if (log.size() < max) {
      return false;
    }
    return lastUpdatedMs.isEmpty() || log.get(0).timestampMs() > lastUpdatedMs.get();
  }
}
