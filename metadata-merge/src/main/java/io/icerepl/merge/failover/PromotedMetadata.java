package io.icerepl.merge.failover;

import static io.icerepl.merge.model.TableMetadataFields.CURRENT_SNAPSHOT_ID;
import static io.icerepl.merge.model.TableMetadataFields.LAST_SEQUENCE_NUMBER;
import static io.icerepl.merge.model.TableMetadataFields.LAST_UPDATED_MS;
import static io.icerepl.merge.model.TableMetadataFields.NEXT_ROW_ID;
import static io.icerepl.merge.model.TableMetadataFields.PROPERTIES;
import static io.icerepl.merge.model.TableMetadataFields.REFS;
import static io.icerepl.merge.model.TableMetadataFields.REF_TYPE;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_ID;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_LOG;
import static io.icerepl.merge.model.TableMetadataFields.TIMESTAMP_MS;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.merge.ReplicaCommits;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The metadata of a promotion commit: the replica's current version turned into a table writers may
 * commit to. Pure: the commit time is passed in.
 */
public final class PromotedMetadata {
  /**
   * Added to {@code last-sequence-number}. The old source may have committed after the last
   * replicated version (it was unreachable); its commits carry the sequence numbers that follow the
   * replica's, which the promoted table's first commits would otherwise reuse. With the gap the two
   * lines of history never share a sequence number, so a fail-back can keep both.
   */
  public static final long SEQUENCE_NUMBER_GAP = 1L << 20;

  /**
   * Added to a v3 table's {@code next-row-id}, for the same reason: row ids the old source assigned
   * after the last replicated version are never assigned again by the promoted table.
   */
  public static final long ROW_ID_GAP = 1L << 40;

  private static final String MAIN = "main";
  private static final String BRANCH = "branch";
  private static final String MIN_SNAPSHOTS_TO_KEEP = "min-snapshots-to-keep";
  private static final String MAX_SNAPSHOT_AGE_MS = "max-snapshot-age-ms";
  private static final String MAX_REF_AGE_MS = "max-ref-age-ms";

  private PromotedMetadata() {}

  /**
   * The epoch a promotion of {@code replica} records: 1 for the first promotion of its line of
   * history, one more than the epoch it already carries otherwise.
   */
  public static long nextEpoch(TableMetadata replica) {
    return epoch(replica).orElse(0) + 1;
  }

  /**
   * The promotion epoch {@code metadata} carries ({@code replicator.epoch}), empty when it carries
   * none or one that is not a number.
   */
  public static OptionalLong epoch(TableMetadata metadata) {
    String value = metadata.properties().get(ReplicaProperties.EPOCH);
    if (value == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(value.trim()));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * @param replica the replica's current metadata
   * @param replicaFile its file, appended to {@code metadata-log}
   * @param epoch the promotion's epoch, set as {@code replicator.epoch}
   * @param commitTimeMs now; {@code last-updated-ms} never goes back from the replica's
   * @return the metadata without the read-only marking and the replicator's commit token, the
   *     sequence number and row id gaps applied
   */
  public static TableMetadata of(
      TableMetadata replica, String replicaFile, long epoch, long commitTimeMs) {
    return of(replica, replicaFile, epoch, commitTimeMs, null);
  }

  /**
   * The branch that keeps, on a table promoted at a group's cut, every snapshot replicated after
   * the cut: nothing replicated is lost, and a writer may still take it back.
   */
  public static String replicatedAfterCut(String cutTag) {
    return cutTag + "-replicated";
  }

  /**
   * As above, promoted at a replication group's cut when {@code cutTag} is given: {@code main} is
   * moved back to that tag's snapshot (a {@code snapshot-log} entry records the move, as for a
   * rollback), and {@link #replicatedAfterCut the branch} keeps main's former head with every
   * snapshot after the cut ({@code min-snapshots-to-keep}, no age limits).
   *
   * @throws IllegalArgumentException when the replica has no such tag
   */
  public static TableMetadata of(
      TableMetadata replica, String replicaFile, long epoch, long commitTimeMs, String cutTag) {
    ObjectNode out = replica.copyOfJson();
    ObjectNode properties = out.with(PROPERTIES);
    properties.remove(ReplicaProperties.READ_ONLY);
    properties.remove(ReplicaProperties.COMMIT_TOKEN);
    properties.put(ReplicaProperties.EPOCH, Long.toString(epoch));
    // v1 has no sequence numbers: readers take every v1 file as sequence number 0
    if (replica.formatVersion() >= 2) {
      out.put(LAST_SEQUENCE_NUMBER, replica.lastSequenceNumber() + SEQUENCE_NUMBER_GAP);
    }
    if (replica.formatVersion() >= 3 && out.hasNonNull(NEXT_ROW_ID)) {
      out.put(NEXT_ROW_ID, out.get(NEXT_ROW_ID).asLong() + ROW_ID_GAP);
    }
    ReplicaCommits.setMetadataLog(
        out,
        Optional.of(replica),
        Optional.of(replicaFile),
        ReplicaCommits.previousVersionsMax(replica));
    ReplicaCommits.setLastUpdatedMs(out, Optional.of(replica), commitTimeMs, 0L);
    if (cutTag != null) {
      moveMainToCut(out, replica, cutTag);
    }
    return TableMetadataParser.fromJson(out, "promoted " + replicaFile);
  }

  /**
   * The snapshots from {@code head} back along its parents to the cut snapshot, the cut left out,
   * newest first: what a promotion at the cut keeps on {@link #replicatedAfterCut its branch}. The
   * walk stops at a snapshot the table no longer holds.
   */
  public static List<Snapshot> afterCut(TableMetadata metadata, long head, long cut) {
    List<Snapshot> after = new ArrayList<>();
    for (Snapshot snapshot : metadata.graph().ancestors(head)) {
      if (snapshot.snapshotId() == cut) {
        break;
      }
      after.add(snapshot);
    }
    return after;
  }

  private static void moveMainToCut(ObjectNode out, TableMetadata replica, String cutTag) {
    Long cut = replica.refs().get(cutTag);
    if (cut == null) {
      throw new IllegalArgumentException(
          "Cannot promote "
              + replica.location()
              + " at cut tag "
              + cutTag
              + ": it has no such tag");
    }
    Optional<Long> head = replica.currentSnapshotId();
    if (head.isEmpty() || head.get().equals(cut)) {
      return;
    }
    int after = afterCut(replica, head.get(), cut).size();
    out.put(CURRENT_SNAPSHOT_ID, cut);
    ObjectNode refs = out.with(REFS);
    refs.with(MAIN).put(SNAPSHOT_ID, cut).put(REF_TYPE, BRANCH);
    refs.putObject(replicatedAfterCut(cutTag))
        .put(SNAPSHOT_ID, head.get())
        .put(REF_TYPE, BRANCH)
        .put(MIN_SNAPSHOTS_TO_KEEP, after)
        .put(MAX_SNAPSHOT_AGE_MS, Long.MAX_VALUE)
        .put(MAX_REF_AGE_MS, Long.MAX_VALUE);
    out.withArray(SNAPSHOT_LOG)
        .addObject()
        .put(TIMESTAMP_MS, out.get(LAST_UPDATED_MS).asLong())
        .put(SNAPSHOT_ID, cut);
  }
}
