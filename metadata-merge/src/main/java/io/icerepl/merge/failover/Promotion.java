package io.icerepl.merge.failover;

import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A replica promoted to a writable table (failover). Recorded in the replica's state before the
 * promoted version is published, so every replicator instance, after any restart, finds it and
 * stops replicating into the table.
 *
 * @param epoch the line of history's promotion count: 1 for the first promotion, one more than the
 *     replica's {@code replicator.epoch} when it already had one
 * @param promotedAtMillis when the promotion was recorded
 * @param mode how it was promoted: {@code safe} (replicated and verified first) or {@code now}
 * @param lastSourceMetadataFile the name of the last source metadata file the replica was built
 *     from
 * @param lastSourceLastUpdatedMs that file's {@code last-updated-ms}, null when the replica did not
 *     record it
 * @param replicaVersion the replica version number the promotion commit wrote
 * @param cutTag the replication group's cut tag the table was promoted at (a consistent promotion:
 *     its {@code main} is that tag's snapshot), null for a promotion of the table alone
 */
public record Promotion(
    long epoch,
    long promotedAtMillis,
    String mode,
    String lastSourceMetadataFile,
    Long lastSourceLastUpdatedMs,
    long replicaVersion,
    String cutTag) {

  public Promotion {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(lastSourceMetadataFile, "lastSourceMetadataFile");
  }

  /** A promotion of the table alone, at what the replica holds. */
  public Promotion(
      long epoch,
      long promotedAtMillis,
      String mode,
      String lastSourceMetadataFile,
      Long lastSourceLastUpdatedMs,
      long replicaVersion) {
    this(
        epoch,
        promotedAtMillis,
        mode,
        lastSourceMetadataFile,
        lastSourceLastUpdatedMs,
        replicaVersion,
        null);
  }

  /** What a source head means for the promoted replica: every value but the last fences it. */
  public enum Fence {
    /** The source head is still the version the replica was promoted from. */
    PROMOTED,
    /** The old source committed after the failover: its new versions are not replicated over. */
    OLD_PRIMARY_WROTE,
    /**
     * The source is a later promotion of a replica of this table (a switch-back), but the replica
     * was written after that replica last caught up: its new commits are not replicated over.
     */
    DIVERGED_AFTER_PROMOTION,
    /**
     * The source was failed back from the replica: it is the promoted table's read-only replica at
     * this epoch, written by nobody since its replicator last committed. The roles are reversed as
     * asked, so it is not replicated from, and nothing is wrong.
     */
    FAILED_BACK,
    /**
     * Not a fence: the source is the failed-back line promoted again, holding everything the
     * replica holds, so the promotion ends and replication into the replica resumes.
     */
    SWITCHED_BACK
  }

  /**
   * The one rule deciding what a source head means for this promoted replica. A source that does
   * not carry a higher {@code replicator.epoch} is this table's old primary: still at the promoted
   * version it is plainly {@link Fence#PROMOTED}; past it, it wrote after the failover, which is
   * never replicated over the promoted table.
   *
   * <p>A source with a higher epoch was promoted from a replica of this table (after a fail-back).
   * It takes over as the source again only if it was promoted from exactly the replica's current
   * version, proven by the source's own promotion record naming the replica's current metadata file
   * and that file's {@code last-updated-ms} (the replicator wrote the record from that replica's
   * properties, and no writer edits it); and if its head still holds the replica's current snapshot
   * and every ref's snapshot. A commit on the replica after that fail-back fails the first check,
   * its snapshots the second: {@link Fence#DIVERGED_AFTER_PROMOTION}.
   *
   * @param sourceHeadFile the source's current metadata file (a path or a name)
   * @param source its content
   * @param sourcePromotion the promotion recorded in the source's own replicator state, null when
   *     the source was never a promoted replica
   * @param replicaFile the replica's current metadata file
   * @param replica its content
   */
  public Fence fence(
      String sourceHeadFile,
      TableMetadata source,
      Promotion sourcePromotion,
      String replicaFile,
      TableMetadata replica) {
    if (!isOutrankedBy(source)) {
      return fence(sourceHeadFile);
    }
    boolean promotedFromReplicaHead =
        sourcePromotion != null
            && sourcePromotion.epoch() > epoch
            && MetadataFileNames.fileName(sourcePromotion.lastSourceMetadataFile())
                .equals(MetadataFileNames.fileName(replicaFile))
            && Objects.equals(sourcePromotion.lastSourceLastUpdatedMs(), replica.lastUpdatedMs());
    return promotedFromReplicaHead && writtenAfter(source, replica).isEmpty()
        ? Fence.SWITCHED_BACK
        : Fence.DIVERGED_AFTER_PROMOTION;
  }

  /**
   * The rule above for a source that does not {@linkplain #isOutrankedBy outrank} the promotion:
   * only its head file matters.
   *
   * @param sourceHeadFile the source's current metadata file (a path or a name)
   */
  public Fence fence(String sourceHeadFile) {
    return MetadataFileNames.fileName(sourceHeadFile)
            .equals(MetadataFileNames.fileName(lastSourceMetadataFile))
        ? Fence.PROMOTED
        : Fence.OLD_PRIMARY_WROTE;
  }

  /**
   * The rule for a source that does not {@linkplain #isOutrankedBy outrank} the promotion, knowing
   * whether its head is the last commit its own replicator recorded: a read-only replica at this
   * promotion's epoch so written is the fail-back's replica of the promoted table ({@link
   * Fence#FAILED_BACK}); a commit on it since is the old primary writing again.
   *
   * @param sourceHeadFile the source's current metadata file (a path or a name)
   * @param source its content
   * @param headIsRecordedCommit whether {@code sourceHeadFile} is the version the source's own
   *     replicator state records as its last commit
   */
  public Fence fence(String sourceHeadFile, TableMetadata source, boolean headIsRecordedCommit) {
    return isReplicaOfThisLine(source) && headIsRecordedCommit
        ? Fence.FAILED_BACK
        : fence(sourceHeadFile);
  }

  /**
   * Whether {@code source} is marked as a read-only replica carrying this promotion's epoch: only
   * the promoted table's own versions and the replicas made from them (a fail-back) carry it.
   */
  public boolean isReplicaOfThisLine(TableMetadata source) {
    return "true".equals(source.properties().get(ReplicaProperties.READ_ONLY))
        && PromotedMetadata.epoch(source).orElse(0) == epoch;
  }

  /**
   * Whether {@code source} carries a higher {@code replicator.epoch} than this promotion: a later
   * promotion of the same line of history, never this table's old primary.
   */
  public boolean isOutrankedBy(TableMetadata source) {
    return PromotedMetadata.epoch(source).orElse(0) > epoch;
  }

  /**
   * The replica's snapshots {@code source} lacks that its current snapshot or a ref reaches: each
   * ref's snapshot and its ancestors down to the first one the source holds, in the replica's
   * order.
   */
  public static List<Long> writtenAfter(TableMetadata source, TableMetadata replica) {
    Set<Long> inSource = new HashSet<>();
    source.snapshots().forEach(s -> inSource.add(s.snapshotId()));
    Set<Long> heads = new LinkedHashSet<>();
    replica.currentSnapshotId().ifPresent(heads::add);
    heads.addAll(replica.refs().values());
    Set<Long> missing = new HashSet<>();
    for (Long head : heads) {
      for (Snapshot snapshot : replica.graph().ancestors(head)) {
        if (inSource.contains(snapshot.snapshotId()) || !missing.add(snapshot.snapshotId())) {
          break;
        }
      }
    }
    return replica.snapshots().stream()
        .map(Snapshot::snapshotId)
        .filter(missing::contains)
        .toList();
  }
}
