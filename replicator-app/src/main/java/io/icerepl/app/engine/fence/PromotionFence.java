package io.icerepl.app.engine.fence;

import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fence of a promoted replica, asked by every replication run under the table's lease.
 *
 * <p>A promoted replica is a primary: nothing is replicated into it, by any instance, whatever the
 * source does ({@link PromotedReplicaException}). The record is the replica's own, so it holds
 * after restarts and with the source back. A source that cannot be read does not hide the
 * promotion. Only a switch-back ends it (see {@link Promotion#fence}): the source is the
 * failed-back line, promoted again from the replica's current version; the run then resumes from
 * the source version that holds it ({@link SwitchBack}) and, once it committed, {@linkplain #end
 * ends} the promotion.
 *
 * <p>It knows the rules of the fence ({@code merge.failover.Promotion}) and how to read both sides;
 * nothing of how a replica is promoted or failed back ({@code engine.failover} builds on
 * replication, never the reverse).
 *
 * @param source the source tables' store
 * @param replicaFiles reads the replicas
 * @param headResolver where a source's head is read when the run did not read it before
 * @param registrar where a replica is registered, whose entry may name its current version
 */
public record PromotionFence(
    ObjectStore source,
    long maxMetadataBytes,
    ReplicaFiles replicaFiles,
    SourceHeadResolver headResolver,
    Optional<ReplicaRegistrar> registrar) {
  private static final Logger LOG = LoggerFactory.getLogger(PromotionFence.class);

  /**
   * The source's head as a run read it before taking the lease.
   *
   * @param file its metadata file
   * @param metadata that file, parsed
   */
  public record SourceHead(String file, TableMetadata metadata) {}

  /**
   * Refuses a replication into a promoted replica, unless the source is a switch-back. A promotion
   * a recorded and published replica commit already ended is ended here (its record dropped from
   * the state).
   *
   * @param table the table, for messages
   * @param sourceLocation the source table location
   * @param before the source's head as read before the lease was taken; read here when empty
   * @param state the replica's state as read under the lease
   * @param leased the replica, under the table's lease
   * @return empty for a replica that is not promoted (any more); for a switch-back, the replica's
   *     current version and where in the source to resume
   * @throws PromotedReplicaException when the replica is promoted and the source no switch-back
   */
  public Optional<SwitchBack> check(
      String table,
      String sourceLocation,
      Optional<SourceHead> before,
      ReplicaState state,
      LeasedReplica leased)
      throws IOException {
    String targetLocation = leased.location();
    Promotion promotion = state.promotion();
    if (promotion == null || promotionEnded(table, state, leased)) {
      return Optional.empty();
    }
    String sourceHead;
    TableMetadata sourceMetadata;
    try {
      sourceHead =
          before.map(SourceHead::file).orElseGet(() -> headResolver.head(sourceLocation).file());
      sourceMetadata =
          before
              .map(SourceHead::metadata)
              .orElseGet(() -> ReplicaFiles.readMetadata(source, sourceHead, maxMetadataBytes));
    } catch (RuntimeException e) {
      LOG.info(
          "{}: source head unreadable ({}) for promoted replica {}",
          table,
          e.getMessage(),
          targetLocation);
      throw PromotedReplicaException.of(
          table, targetLocation, promotion, null, promotedFile(table, targetLocation, promotion));
    }
    if (!promotion.isOutrankedBy(sourceMetadata)) {
      String current = promotedFile(table, targetLocation, promotion);
      boolean recorded =
          promotion.isReplicaOfThisLine(sourceMetadata)
              && isRecordedCommit(sourceLocation, sourceHead);
      if (promotion.fence(sourceHead, sourceMetadata, recorded) == Promotion.Fence.FAILED_BACK) {
        throw PromotedReplicaException.failedBack(
            table, targetLocation, promotion, sourceHead, current);
      }
      throw PromotedReplicaException.of(table, targetLocation, promotion, sourceHead, current);
    }
    // a later promotion of a replica of this table: only then are its record and the replica's
    // current version, which the table's writers wrote, needed
    ReplicaHead replica =
        replicaFiles
            .promotedHead(
                table, targetLocation, promotion, registrar.flatMap(ReplicaRegistrar::entryFile))
            .orElseThrow(() -> new IllegalStateException(targetLocation + " holds no version"));
    Promotion sourcePromotion =
        new ReplicaFiles(source, maxMetadataBytes).state(sourceMetadata.location()).promotion();
    Promotion.Fence fence =
        promotion.fence(
            sourceHead, sourceMetadata, sourcePromotion, replica.file(), replica.metadata());
    if (fence != Promotion.Fence.SWITCHED_BACK) {
      throw PromotedReplicaException.diverged(
          table,
          targetLocation,
          promotion,
          sourceHead,
          sourcePromotion,
          replica.file(),
          Promotion.writtenAfter(sourceMetadata, replica.metadata()));
    }
    LOG.info(
        "{}: {} is the fail-back line promoted again (epoch {}, from {}): replication into {}, promoted at epoch {}, resumes",
        table,
        sourceHead,
        sourcePromotion.epoch(),
        replica.file(),
        targetLocation,
        promotion.epoch());
    // the source's promotion commit follows the version that replicated the replica's head
    return Optional.of(
        new SwitchBack(
            replica,
            ReplicaLayout.metadataFileName(sourcePromotion.replicaVersion() - 1),
            sourcePromotion.promotedAtMillis()));
  }

  /**
   * Ends the promotion of a switch-back's run once it committed a version: the replica is a
   * read-only replica again.
   */
  public void end(String table, LeasedReplica leased) throws IOException {
    String targetLocation = leased.location();
    ReplicaState state = leased.state();
    leased.writeState(state.withPromotion(null), "end the promotion");
    LOG.info(
        "{}: {} is a read-only replica again; its promotion at epoch {} ended",
        table,
        targetLocation,
        state.promotion().epoch());
  }

  /**
   * Whether the source's head is the last commit its own replicator state records: nobody wrote the
   * source since a fail-back (or its later runs) made it a replica.
   */
  private boolean isRecordedCommit(String sourceLocation, String sourceHead) throws IOException {
    ReplicaState.LastCommit last =
        new ReplicaFiles(source, maxMetadataBytes).state(sourceLocation).lastCommit();
    return last != null
        && ReplicaLayout.metadataFileName(last.version())
            .equals(MetadataFileNames.fileName(sourceHead));
  }

  /**
   * The promoted replica's current metadata file, where its writers commit, for its status; null
   * when it cannot be read (the fence does not depend on it).
   */
  private String promotedFile(String table, String targetLocation, Promotion promotion) {
    try {
      return replicaFiles
          .promotedHead(
              table, targetLocation, promotion, registrar.flatMap(ReplicaRegistrar::entryFile))
          .map(ReplicaHead::file)
          .orElse(null);
    } catch (IOException | RuntimeException e) {
      LOG.debug("{}: current version of promoted replica {} unread", table, targetLocation, e);
      return null;
    }
  }

  /**
   * Whether a replica commit the replicator recorded after the promotion was published: a
   * switch-back (or a fail-back into the promoted table) ended the promotion, and a crash before
   * its record was dropped left it behind. A recorded commit not published yet ends nothing: the
   * switch-back is decided again.
   */
  private boolean promotionEnded(String table, ReplicaState state, LeasedReplica leased)
      throws IOException {
    String targetLocation = leased.location();
    ReplicaState.LastCommit last = state.lastCommit();
    if (last == null || last.version() <= state.promotion().replicaVersion()) {
      return false;
    }
    Optional<ReplicaHead> head;
    try {
      head = replicaFiles.head(table, targetLocation);
    } catch (DivergedReplicaException e) {
      return false; // written on since: the fence names what
    }
    if (head.isEmpty() || head.get().version() != last.version()) {
      return false;
    }
    end(table, leased);
    return true;
  }

  /**
   * A switch-back found by {@link #check}.
   *
   * @param replica the replica's current version, written by the table's writers
   * @param resumeAfter the source version that holds it: every later one is applied
   * @param resumeAfterUpdatedMs no earlier than that version's {@code last-updated-ms}, should the
   *     source's log have been cut since
   */
  public record SwitchBack(ReplicaHead replica, String resumeAfter, long resumeAfterUpdatedMs) {}
}
