package io.icerepl.merge.merge;

import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadata.LogEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which source metadata versions to apply, in the source's order, after the one the replica holds.
 * The source's {@code metadata-log} is the order; a replicated file missing from a log that reaches
 * back to its time means the source was rewound or replaced.
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
    } else if (logStartsAfter(head, log, lastReplicatedUpdatedMs)) {
      if (!coalesce) {
        log.forEach(e -> result.add(e.metadataFile()));
      }
    } else {
      throw new ConflictException(
          "Cannot replicate table metadata "
              + headFile
              + ": the last replicated source file "
              + lastReplicated.get()
              + " is not in its metadata-log; the source was rewound or"
              + " replaced");
    }
    result.add(headFile);
    return result;
  }

  /**
   * Whether the log lost its oldest entries after the last replicated file was written, so that it
   * cannot name it. The log is the table's history without gaps: one that reaches back to the time
   * that file was current and does not name it proves a rewind, and so does an empty log (the head
   * is a table's first version). A log shorter than {@code write.metadata.previous-versions-max}
   * proves nothing: the property may have been raised after the log was cut. Only a replica that
   * did not record the file's time falls back to a full log as the sign of a cut one.
   */
  private static boolean logStartsAfter(
      TableMetadata head, List<LogEntry> log, Optional<Long> lastUpdatedMs) {
    if (log.isEmpty()) {
      return false;
    }
    if (lastUpdatedMs.isPresent()) {
      // equal times: the entry is the replicated file's successor, written within the same
      // millisecond
      return log.get(0).timestampMs() >= lastUpdatedMs.get();
    }
    return log.size() >= ReplicaCommits.previousVersionsMax(head);
  }
}
