package io.icerepl.app.engine.retention;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.merge.ReplicaCommits;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.retention.DroppedRef;
import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.ExpiredSnapshot;
import io.icerepl.merge.retention.ReachabilityPlanner;
import io.icerepl.merge.retention.RetentionPlan;
import io.icerepl.merge.retention.RetentionPlanner;
import io.icerepl.merge.retention.RetentionPolicies;
import io.icerepl.merge.retention.RetentionPolicy;
import io.icerepl.merge.retention.UnreachableFiles;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires snapshots on a replica by the replica's own policy: plan (pure) → remember what expires →
 * publish the new metadata → delete the files no retained snapshot reaches → forget the pending
 * deletion. A crash between publish and delete leaves only orphans; the next run finishes the
 * deletion after recomputing reachability against the replica's current metadata.
 */
public final class RetentionRunner {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionRunner.class);

  private final ObjectStore target;
  private final Clock clock;
  private final RetentionSettings settings;
  private final ReplicaFiles replicaFiles;
  private final PendingDeletion pendingDeletion;
  private final FileDeletion deletion;

  public RetentionRunner(ObjectStore target, Clock clock, RetentionSettings settings) {
    this(target, clock, settings, DeletionProgress.Listener.NONE);
  }

  /**
   * @param progress told how far the deletion of the expired snapshots' files is
   */
  public RetentionRunner(
      ObjectStore target,
      Clock clock,
      RetentionSettings settings,
      DeletionProgress.Listener progress) {
    this.target = target;
    this.deletion = new FileDeletion(progress);
    this.clock = clock;
    this.settings = settings;
    this.replicaFiles = new ReplicaFiles(target, settings.maxMetadataBytes());
    this.pendingDeletion = new PendingDeletion(target, settings.batchSize());
  }

  /**
   * Expires the replica at {@code location} by {@code options}.
   *
   * @param progress told how far the deletion of the expired snapshots' files is
   */
  public static RetentionResult expire(
      ObjectStore target,
      Clock clock,
      String location,
      RetentionOptions options,
      long maxMetadataBytes,
      DeletionProgress.Listener progress) {
    return new RetentionRunner(target, clock, options.settings(maxMetadataBytes), progress)
        .expire(location, Optional.empty(), options.adjustment(), options.expire());
  }

  /**
   * @param location the replica location
   * @param policy the table-level policy the replicator's configuration sets, or empty to follow
   *     the table's {@code history.expire.*} properties
   * @param adjust adjusts the resolved table-level policy (e.g. a configured max ref age)
   * @param options this run's controls
   */
  public RetentionResult expire(
      String location,
      Optional<RetentionPolicy> policy,
      UnaryOperator<RetentionPolicy> adjust,
      ExpireOptions options) {
    try (ObjectStore.Lock lock = target.lock(location)) {
      return run(
          location,
          policy,
          adjust,
          options,
          new LeasedReplica(target, replicaFiles, location, lock));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot expire snapshots of replica " + location + ": " + IoErrors.describe(e), e);
    }
  }

  private RetentionResult run(
      String location,
      Optional<RetentionPolicy> configured,
      UnaryOperator<RetentionPolicy> adjust,
      ExpireOptions options,
      LeasedReplica replica)
      throws IOException {
    ReplicaHead head =
        replicaFiles
            .head(location, location)
            .orElseThrow(
                () ->
                    new BadInputException(
                        "Cannot expire snapshots of " + location + ": it holds no replica"));
    ReplicaState state = replica.state();
    if (!options.dryRun()) {
      state = pendingDeletion.finish(replica, head.metadata(), state);
    }

    TableMetadata before = head.metadata();
    RetentionPolicy policy =
        adjust.apply(
            configured.orElseGet(() -> RetentionPolicies.fromProperties(before.properties())));
    RetentionPlan plan = RetentionPlanner.plan(before, policy, options, clock.millis());
    plan.warnings().forEach(w -> LOG.warn("{}: {}", location, w));
    boolean filesKept = !mayDeleteFiles(before);
    List<ExpiredSnapshot> expired = ReachabilityPlanner.describe(before, plan.expiredSnapshotIds());
    // statistics files replication stopped naming (the source replaced or removed them) go too
    List<String> replacedStatistics =
        ReachabilityPlanner.unnamedStatisticsFiles(state.replacedStatisticsFiles(), before);
    UnreachableFiles unreachable =
        (plan.expiredSnapshotIds().isEmpty()
                ? UnreachableFiles.none()
                : ReachabilityPlanner.unreachable(
                    expired, plan.metadata(), target::open, settings.batchSize()))
            .withStatisticsFiles(replacedStatistics);

    if (options.dryRun()) {
      return new RetentionResult(
          filesKept ? UnreachableFiles.none() : unreachable,
          true,
          filesKept,
          plan.expiredSnapshotIds(),
          plan.droppedRefs(),
          plan.warnings(),
          head.file());
    }
    if (plan.expiredSnapshotIds().isEmpty() && plan.droppedRefs().isEmpty()) {
      LOG.info("{}: nothing to expire", location);
      if (filesKept) {
        return new RetentionResult(
            UnreachableFiles.none(),
            false,
            true,
            List.of(),
            List.of(),
            plan.warnings(),
            head.file());
      }
      if (!state.replacedStatisticsFiles().isEmpty()) {
        deletion.delete(replica, unreachable);
        replica.writeState(
            replica.state().withReplacedStatisticsFiles(List.of()),
            "forget the deleted statistics files");
      }
      return new RetentionResult(
          unreachable, false, false, List.of(), List.of(), plan.warnings(), head.file());
    }

    // Remember first: once published, replication must not bring these back, and a crash before
    // the deletes must leave enough to finish them.
    Set<Long> expiredIds = new HashSet<>(state.expiredSnapshotIds());
    expiredIds.addAll(plan.expiredSnapshotIds());
    Map<String, Long> droppedRefs = new HashMap<>(state.droppedRefs());
    plan.droppedRefs().forEach(r -> droppedRefs.put(r.name(), r.snapshotId()));
    List<ExpiredSnapshot> pending = new ArrayList<>(state.pendingDeletes());
    if (!filesKept) {
      pending.addAll(expired);
    }
    replica.writeState(state.withRetention(expiredIds, droppedRefs, pending), "expire snapshots");

    ObjectNode json = plan.metadata().copyOfJson();
    ReplicaCommits.setMetadataLog(
        json,
        Optional.of(before),
        Optional.of(head.file()),
        ReplicaCommits.previousVersionsMax(before));
    ReplicaCommits.setLastUpdatedMs(
        json, Optional.of(before), clock.millis(), before.lastUpdatedMs());
    TableMetadata after =
        replica.recordCommit(
            Optional.of(head),
            head.version() + 1,
            TableMetadataParser.fromJson(json, "replica " + location));
    String published = replica.publish(location, head.version() + 1, after);
    LOG.info(
        "{}: expired {} snapshot(s), dropped refs {}; published {}",
        location,
        plan.expiredSnapshotIds().size(),
        plan.droppedRefs().stream().map(DroppedRef::name).toList(),
        published);

    if (!filesKept) {
      deletion.delete(replica, unreachable);
      replica.writeState(
          replica
              .state()
              .withRetention(expiredIds, droppedRefs, state.pendingDeletes())
              .withReplacedStatisticsFiles(List.of()),
          "forget the deleted files of expired snapshots");
    }
    return new RetentionResult(
        filesKept ? UnreachableFiles.none() : unreachable,
        false,
        filesKept,
        plan.expiredSnapshotIds(),
        plan.droppedRefs(),
        plan.warnings(),
        published);
  }

  /** gc.enabled=false: files may be shared with other tables, unless the replica owns its files. */
  private boolean mayDeleteFiles(TableMetadata metadata) {
    String gc = metadata.properties().get("gc.enabled");
    return settings.replicaOwnsFiles() || gc == null || Boolean.parseBoolean(gc.trim());
  }
}
