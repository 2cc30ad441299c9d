package io.icerepl.app.engine.failover;

import io.icerepl.app.engine.ReplicationResult;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.app.engine.verify.VerifyResult;
import io.icerepl.app.engine.verify.VerifySource;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.failover.PromotedMetadata;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Promotes a replica to a table any Iceberg writer may commit to (failover). The promotion is one
 * more replica commit, published like every other: version N+1 is the current version without the
 * read-only marking, with the epoch set and the sequence number and row id gaps applied. The
 * promotion is recorded in the replica's state before that version is published, so replication
 * stops from then on, and a rerun after a crash finishes the publish.
 */
public final class TablePromoter {
  private static final Logger LOG = LoggerFactory.getLogger(TablePromoter.class);

  private final ObjectStore target;
  private final Clock clock;
  private final long maxMetadataBytes;
  private final ReplicaFiles replicaFiles;
  private final Optional<ReplicaRegistrar> entry;

  public TablePromoter(ObjectStore target, Clock clock, long maxMetadataBytes) {
    this(target, clock, maxMetadataBytes, Optional.empty());
  }

  /**
   * @param entry the replica's entry in the target's catalog, moved to the promoted version after
   *     it is published (and by a rerun, if a crash came in between)
   */
  public TablePromoter(
      ObjectStore target, Clock clock, long maxMetadataBytes, Optional<ReplicaRegistrar> entry) {
    this.target = target;
    this.clock = clock;
    this.maxMetadataBytes = maxMetadataBytes;
    this.replicaFiles = new ReplicaFiles(target, maxMetadataBytes);
    this.entry = entry;
  }

  /**
   * Safe mode: replicates what the source still serves, verifies the replica against it, and
   * promotes only when verify found no problem, or {@code force} is set. A replica already promoted
   * is only finished.
   *
   * @param replicator replicates the source into {@code targetLocation}
   * @param source the source's store, for the verification
   * @param verifier verifies the replica
   * @param problems receives each problem verify finds
   * @param decidedOn the replica version the caller saw when it decided to promote, if any: a
   *     retried or replayed request after the table moved on (promoted and switched back since) is
   *     refused
   * @throws TablePromotionException when verify found problems and {@code force} is not set
   */
  public PromotionResult promoteSafely(
      String table,
      String sourceLocation,
      String targetLocation,
      TableReplicator replicator,
      ObjectStore source,
      TableVerifier verifier,
      boolean force,
      Consumer<String> problems,
      OptionalLong decidedOn) {
    if (promotion(table, targetLocation).isPresent()) {
      return promote(table, targetLocation, PromotionMode.SAFE, decidedOn);
    }
    if (decidedOn.isPresent()) {
      try {
        refuseMoved(table, decidedOn, replicaFiles.head(table, targetLocation));
      } catch (IOException e) {
        throw new TablePromotionException(table, IoErrors.describe(e), new UncheckedIOException(e));
      }
    }
    ReplicationResult replicated = replicator.replicateIfChanged(sourceLocation, targetLocation);
    VerifyResult verified =
        verifier.verify(
            targetLocation,
            Optional.of(
                new VerifySource(source, sourceLocation, replicated.heads().source().file())),
            problems);
    if (verified.problems() > 0) {
      if (!force) {
        throw new TablePromotionException(
            table,
            "verify found "
                + verified.problems()
                + " problems in "
                + verified.checked()
                + " checked; the replica is not promoted (force promotes it anyway)");
      }
      LOG.warn(
          "{}: promoting {} despite {} verify problems: forced",
          table,
          targetLocation,
          verified.problems());
    }
    // what was decided on was checked before the replication moved the replica on
    return promote(table, targetLocation, PromotionMode.SAFE, OptionalLong.empty());
  }

  /**
   * Promotes what the replica holds, or finishes and reports an earlier promotion.
   *
   * @param mode recorded with the promotion
   * @throws TablePromotionException when there is no replica or it cannot be promoted
   */
  public PromotionResult promote(String table, String targetLocation, PromotionMode mode) {
    return promote(table, targetLocation, mode, OptionalLong.empty());
  }

  /**
   * As above, refused when the replica is no longer at the version the request was decided on (for
   * an earlier promotion: the version it promoted from, so a retry is answered as a rerun).
   */
  public PromotionResult promote(
      String table, String targetLocation, PromotionMode mode, OptionalLong decidedOn) {
    return promote(table, targetLocation, mode, decidedOn, Optional.empty());
  }

  /**
   * As above; with {@code cutTag}, at a replication group's cut: the promoted {@code main} is that
   * tag's snapshot, and what was replicated after it stays on a branch (see {@link
   * PromotedMetadata#replicatedAfterCut}). A rerun finishes the promotion at the cut it recorded,
   * and refuses another.
   */
  public PromotionResult promote(
      String table,
      String targetLocation,
      PromotionMode mode,
      OptionalLong decidedOn,
      Optional<String> cutTag) {
    try (ObjectStore.Lock lock = target.lock(targetLocation)) {
      LeasedReplica leased = new LeasedReplica(target, replicaFiles, targetLocation, lock);
      ReplicaState state = leased.state();
      if (state.promotion() != null) {
        long promotedFrom = state.promotion().replicaVersion() - 1;
        if (decidedOn.isPresent() && decidedOn.getAsLong() != promotedFrom) {
          throw refused(table, decidedOn.getAsLong(), "was promoted from version " + promotedFrom);
        }
        if (cutTag.isPresent() && !cutTag.get().equals(state.promotion().cutTag())) {
          throw new TablePromotionException(
              table,
              "it was promoted "
                  + (state.promotion().cutTag() == null
                      ? "on its own"
                      : "at cut " + state.promotion().cutTag())
                  + ", not at cut "
                  + cutTag.get()
                  + "; nothing was written");
        }
        return moveEntry(table, targetLocation, finish(table, state.promotion(), leased));
      }
      Optional<ReplicaHead> current = replicaFiles.head(table, targetLocation);
      refuseMoved(table, decidedOn, current);
      ReplicaHead head =
          current.orElseThrow(
              () ->
                  new TablePromotionException(
                      table, targetLocation + " holds no replica to promote"));
      // a cut tag is one the group's tagging recorded in the state, not a ref bearing its name
      Long atCut = cutTag.map(state.cutTags()::get).orElse(null);
      if (cutTag.isPresent()
          && (atCut == null || !atCut.equals(head.metadata().refs().get(cutTag.get())))) {
        throw new TablePromotionException(
            table,
            head.file()
                + " has no cut tag "
                + cutTag.get()
                + " to promote at; nothing was written");
      }
      Promotion promotion =
          new Promotion(
              PromotedMetadata.nextEpoch(head.metadata()),
              clock.millis(),
              mode.label(),
              head.lastSourceFile().orElseThrow(),
              head.lastSourceUpdatedMs().orElse(null),
              head.version() + 1,
              cutTag.orElse(null));
      leased.writeState(state.withPromotion(promotion), "record the promotion");
      return moveEntry(
          table, targetLocation, publish(table, head.metadata(), head.file(), promotion, leased));
    } catch (ReplicationException e) {
      throw new TablePromotionException(table, e.getMessage(), e);
    } catch (IOException e) {
      throw new TablePromotionException(table, IoErrors.describe(e), new UncheckedIOException(e));
    }
  }

  private static void refuseMoved(
      String table, OptionalLong decidedOn, Optional<ReplicaHead> current) {
    if (decidedOn.isEmpty()) {
      return;
    }
    long now = current.map(ReplicaHead::version).orElse(0L);
    if (now != decidedOn.getAsLong()) {
      throw refused(table, decidedOn.getAsLong(), "is at version " + now);
    }
  }

  private static TablePromotionException refused(String table, long decidedOn, String actually) {
    return new TablePromotionException(
        table,
        "the request was decided on replica version "
            + decidedOn
            + ", but the replica "
            + actually
            + " (it moved since: ask its status again); nothing was written");
  }

  /** The promotion recorded in the replica's state, if it was promoted. */
  public Optional<Promotion> promotion(String table, String targetLocation) {
    try {
      return Optional.ofNullable(replicaFiles.state(targetLocation).promotion());
    } catch (IOException e) {
      throw new TablePromotionException(table, IoErrors.describe(e), new UncheckedIOException(e));
    }
  }

  /** The catalog step, after the publish: the entry names the promoted version, writable. */
  private PromotionResult moveEntry(String table, String location, PromotionResult result) {
    entry.ifPresent(
        e ->
            LOG.info(
                "{}: catalog entry {} at the promoted version {}: {}",
                table,
                e.describe(),
                result.metadataFile(),
                e.promote(location, result.metadataFile())));
    return result;
  }

  private PromotionResult publish(
      String table,
      TableMetadata replica,
      String replicaFile,
      Promotion promotion,
      LeasedReplica leased)
      throws IOException {
    String location = leased.location();
    TableMetadata promoted =
        PromotedMetadata.of(
            replica, replicaFile, promotion.epoch(), clock.millis(), promotion.cutTag());
    String file = leased.publish(table, promotion.replicaVersion(), promoted);
    LOG.info(
        "{}: promoted {} at version {}, epoch {}, mode {}, last source version {}",
        table,
        location,
        promotion.replicaVersion(),
        promotion.epoch(),
        promotion.mode(),
        promotion.lastSourceMetadataFile());
    return new PromotionResult(promotion, file, promoted, false);
  }

  /**
   * A rerun: publishes the promoted version if the earlier run stopped before it, else writes a
   * missing version hint. A hint past the promoted version (writers committed since) is left as it
   * is.
   */
  private PromotionResult finish(String table, Promotion promotion, LeasedReplica leased)
      throws IOException {
    String location = leased.location();
    String file = ReplicaLayout.metadataFile(location, promotion.replicaVersion());
    if (target.length(file).isEmpty()) {
      String previous = ReplicaLayout.metadataFile(location, promotion.replicaVersion() - 1);
      TableMetadata replica = ReplicaFiles.readMetadata(target, previous, maxMetadataBytes);
      LOG.info("{}: finishing the promotion of {} an earlier run recorded", table, location);
      return publish(table, replica, previous, promotion, leased);
    }
    TableMetadata promoted = ReplicaFiles.readMetadata(target, file, maxMetadataBytes);
    if (!Long.toString(promotion.epoch())
        .equals(promoted.properties().get(ReplicaProperties.EPOCH))) {
      throw new DivergedReplicaException(
          "Cannot promote table "
              + table
              + ": "
              + file
              + " is not the promoted version its state records (epoch "
              + promotion.epoch()
              + "); another writer committed to the replica");
    }
    if (hintVersion(location).orElse(0) < promotion.replicaVersion()) {
      leased.writeVersionHint(promotion.replicaVersion());
    }
    return new PromotionResult(promotion, file, promoted, true);
  }

  private OptionalLong hintVersion(String location) throws IOException {
    try {
      return OptionalLong.of(
          Long.parseLong(ReplicaFiles.readText(target, ReplicaLayout.versionHintFile(location))));
    } catch (NoSuchFileException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
