package io.icerepl.merge.state;

import io.icerepl.merge.head.MetadataFileNames;
import java.util.Objects;

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
 */
public record Promotion(
    long epoch,
    long promotedAtMillis,
    String mode,
    String lastSourceMetadataFile,
    Long lastSourceLastUpdatedMs,
    long replicaVersion) {

  public Promotion {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(lastSourceMetadataFile, "lastSourceMetadataFile");
  }

  /** Why a replication into the promoted replica must not happen. */
  public enum Fence {
    /** The source head is still the version the replica was promoted from. */
    PROMOTED,
    /** The old source committed after the failover: its new versions are not replicated over. */
    OLD_PRIMARY_WROTE
  }

  /**
   * The one rule deciding what a source head means for this promoted replica. A source still at the
   * promoted version is plainly {@link Fence#PROMOTED}; a source past it is the old primary writing
   * after the failover, which is never replicated over the promoted table.
   *
   * @param sourceHeadFile the source's current metadata file (a path or a name)
   */
  public Fence fence(String sourceHeadFile) {
    return MetadataFileNames.fileName(sourceHeadFile)
            .equals(MetadataFileNames.fileName(lastSourceMetadataFile))
        ? Fence.PROMOTED
        : Fence.OLD_PRIMARY_WROTE;
  }
}
