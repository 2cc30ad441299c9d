package io.icerepl.app.engine.fence;

import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.head.MetadataFileNames;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A replication into a promoted replica was refused: the replica is a primary now. Not a failure to
 * retry: nothing changes until someone fails back (and switches back).
 */
public final class PromotedReplicaException extends ReplicationException {
  private final Promotion promotion;
  private final Promotion.Fence fence;
  private final String currentFile;

  private PromotedReplicaException(
      String message, Promotion promotion, Promotion.Fence fence, String currentFile) {
    super(message, null);
    this.promotion = promotion;
    this.fence = fence;
    this.currentFile = currentFile;
  }

  /**
   * As {@link #of(String, String, Promotion, String)}, knowing the promoted table's current
   * version, where its writers commit.
   *
   * @param currentFile that version's metadata file, null when it could not be read
   */
  public static PromotedReplicaException of(
      String table,
      String targetLocation,
      Promotion promotion,
      String sourceHeadFile,
      String currentFile) {
    PromotedReplicaException fenced = of(table, targetLocation, promotion, sourceHeadFile);
    return new PromotedReplicaException(
        fenced.getMessage(), promotion, fenced.fence(), currentFile);
  }

  /**
   * The source was failed back from the promoted replica ({@link Promotion.Fence#FAILED_BACK}): it
   * is the replica's read-only replica now, and the replica the primary.
   *
   * @param sourceHeadFile the source's current metadata file, the fail-back's last commit
   * @param currentFile the promoted table's current metadata file, null when it could not be read
   */
  public static PromotedReplicaException failedBack(
      String table,
      String targetLocation,
      Promotion promotion,
      String sourceHeadFile,
      String currentFile) {
    String message =
        cannot(table, targetLocation)
            + "the replica was "
            + promoted(promotion)
            + ", and "
            + table
            + " was failed back from it and is its read-only replica (at "
            + MetadataFileNames.fileName(sourceHeadFile)
            + "): the replica is the primary, and replication into it resumes only once "
            + table
            + " is promoted again (switch-back)";
    return new PromotedReplicaException(
        message, promotion, Promotion.Fence.FAILED_BACK, currentFile);
  }

  /**
   * @param table the table, for the message
   * @param targetLocation the promoted replica
   * @param promotion its promotion record
   * @param sourceHeadFile the current metadata file of a source that does not {@linkplain
   *     Promotion#isOutrankedBy outrank} the promotion, null when it could not be read
   */
  public static PromotedReplicaException of(
      String table, String targetLocation, Promotion promotion, String sourceHeadFile) {
    Promotion.Fence fence =
        sourceHeadFile == null ? Promotion.Fence.PROMOTED : promotion.fence(sourceHeadFile);
    String message =
        fence == Promotion.Fence.PROMOTED
            ? cannot(table, targetLocation)
                + "the replica was "
                + promoted(promotion)
                + "; it is a primary now and is not replicated into"
            : cannot(table, targetLocation)
                + "the old primary wrote after failover: its head "
                + MetadataFileNames.fileName(sourceHeadFile)
                + " is past "
                + promotion.lastSourceMetadataFile()
                + ", the version the replica was "
                + promoted(promotion)
                + "; those commits are not replicated over the promoted table";
    return new PromotedReplicaException(message, promotion, fence, null);
  }

  /**
   * A source promoted again after a fail-back ({@link Promotion.Fence#DIVERGED_AFTER_PROMOTION})
   * that does not hold what the replica holds now.
   *
   * @param sourceHeadFile the source's current metadata file
   * @param sourcePromotion the source's own promotion record, null when it has none
   * @param replicaFile the replica's current metadata file
   * @param writtenAfter the replica's snapshots the source lacks ({@link Promotion#writtenAfter})
   */
  public static PromotedReplicaException diverged(
      String table,
      String targetLocation,
      Promotion promotion,
      String sourceHeadFile,
      Promotion sourcePromotion,
      String replicaFile,
      List<Long> writtenAfter) {
    String lacks =
        writtenAfter.isEmpty()
            ? "its current version "
                + MetadataFileNames.fileName(replicaFile)
                + " is not the one the source was promoted from ("
                + (sourcePromotion == null
                    ? "the source records no promotion"
                    : sourcePromotion.lastSourceMetadataFile())
                + ")"
            : "its snapshots "
                + writtenAfter
                + " are not in the source's head "
                + MetadataFileNames.fileName(sourceHeadFile);
    String message =
        cannot(table, targetLocation)
            + "the replica was "
            + promoted(promotion)
            + ", and written on after the source last failed back from it: "
            + lacks
            + "; the replica is not replicated over (to keep its commits, fail back from the"
            + " source: failback --primary <source> --old-source <replica>)";
    return new PromotedReplicaException(
        message, promotion, Promotion.Fence.DIVERGED_AFTER_PROMOTION, replicaFile);
  }

  /** {@code Cannot replicate table <table> into <targetLocation>: }, how each message starts. */
  private static String cannot(String table, String targetLocation) {
    return "Cannot replicate table " + table + " into " + targetLocation + ": ";
  }

  private static String promoted(Promotion promotion) {
    return "promoted at "
        + Instant.ofEpochMilli(promotion.promotedAtMillis())
        + ", epoch "
        + promotion.epoch()
        + ", from source version "
        + promotion.lastSourceMetadataFile();
  }

  public Promotion promotion() {
    return promotion;
  }

  public Promotion.Fence fence() {
    return fence;
  }

  /** The promoted table's current metadata file, where its writers commit, when it was read. */
  public Optional<String> currentFile() {
    return Optional.ofNullable(currentFile);
  }
}
