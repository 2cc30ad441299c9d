package io.icerepl.app.engine.promote;

import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.state.Promotion;
import java.time.Instant;

/**
 * A replication into a promoted replica was refused: the replica is a primary now. Not a failure to
 * retry: nothing changes until someone fails back.
 */
public final class PromotedReplicaException extends ReplicationException {
  private final Promotion promotion;
  private final Promotion.Fence fence;

  private PromotedReplicaException(String message, Promotion promotion, Promotion.Fence fence) {
    super(message, null);
    this.promotion = promotion;
    this.fence = fence;
  }

  /**
   * @param table the table, for the message
   * @param targetLocation the promoted replica
   * @param promotion its promotion record
   * @param sourceHeadFile the source's current metadata file, null when it could not be read
   */
  public static PromotedReplicaException of(
      String table, String targetLocation, Promotion promotion, String sourceHeadFile) {
    Promotion.Fence fence =
        sourceHeadFile == null ? Promotion.Fence.PROMOTED : promotion.fence(sourceHeadFile);
    String promoted =
        "promoted at "
            + Instant.ofEpochMilli(promotion.promotedAtMillis())
            + ", epoch "
            + promotion.epoch()
            + ", from source version "
            + promotion.lastSourceMetadataFile();
    String message =
        fence == Promotion.Fence.PROMOTED
            ? "Cannot replicate table "
                + table
                + " into "
                + targetLocation
                + ": the replica was "
                + promoted
                + "; it is a primary now and is not replicated into"
            : "Cannot replicate table "
                + table
                + " into "
                + targetLocation
                + ": the old primary wrote after failover: its head "
                + MetadataFileNames.fileName(sourceHeadFile)
                + " is past "
                + promotion.lastSourceMetadataFile()
                + ", the version the replica was "
                + promoted
                + "; those commits are not replicated over the promoted table";
    return new PromotedReplicaException(message, promotion, fence);
  }

  public Promotion promotion() {
    return promotion;
  }

  public Promotion.Fence fence() {
    return fence;
  }
}
