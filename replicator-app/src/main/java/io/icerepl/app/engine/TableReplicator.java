package io.icerepl.app.engine;

import io.icerepl.app.engine.batch.BatchPreCopy;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.fence.PromotionFence;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.replication.PrefixLedger;
import io.icerepl.app.engine.replication.VersionStep;
import io.icerepl.app.engine.retention.PendingDeletion;
import io.icerepl.app.engine.retention.RetentionSettings;
import io.icerepl.copier.copy.CopyPlanner;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.copy.PlanExecutor;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.error.TableBusyException;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLocation;
import io.icerepl.merge.state.KnownCurrent;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replicates one source table to one replica location: resolves the source head, applies every
 * newer source version in the source's order as one replica commit each, and publishes each commit
 * only after everything it names is in place.
 */
public final class TableReplicator {
  private static final Logger LOG = LoggerFactory.getLogger(TableReplicator.class);

  private final ReplicatorParts parts;

  private final HeadsCheck check;

  private final Optional<ReplicaRegistrar> registrar;

  /**
   * A replicator from {@code source} to {@code target}.
   *
   * @param executor runs the copies of each commit, and the reads of a check that do not wait for
   *     one another
   */
  public static Builder builder(
      ObjectStore source,
      ObjectStore target,
      ExecutorService executor,
      ReplicationOptions options) {
    return new Builder(source, target, executor, options);
  }

  /** What a replicator is made of beyond its two stores; each part has a default. */
  public static final class Builder {
    private final ObjectStore source;
    private final ObjectStore target;
    private final ExecutorService executor;
    private final ReplicationOptions options;
    private Clock clock = Clock.systemUTC();
    private CopyProgress.Listener progress = CopyProgress.Listener.NONE;
    private TableCatalogs catalogs = TableCatalogs.NONE;
    private Optional<BatchPreCopy> batchPreCopy = Optional.empty();
    private AtomicReference<ReplicaHead> lastPublished = new AtomicReference<>();
    private KnownCurrent knownCurrent = KnownCurrent.ON_COMMIT;

    private Builder(
        ObjectStore source,
        ObjectStore target,
        ExecutorService executor,
        ReplicationOptions options) {
      this.source = Objects.requireNonNull(source, "source");
      this.target = Objects.requireNonNull(target, "target");
      this.executor = Objects.requireNonNull(executor, "executor");
      this.options = Objects.requireNonNull(options, "options");
    }

    /** The clock of commit times and settle times (default: the system's, in UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Told the copy progress of each commit (default: no one). */
    public Builder progress(CopyProgress.Listener progress) {
      this.progress = Objects.requireNonNull(progress, "progress");
      return this;
    }

    /**
     * Where the source head is read and the replica registered, where they name catalogs (default:
     * the source's folder, no registration).
     */
    public Builder catalogs(TableCatalogs catalogs) {
      this.catalogs = Objects.requireNonNull(catalogs, "catalogs");
      return this;
    }

    /**
     * Hands the byte-for-byte copies of a backfill to S3 Batch Operations first, where it finds it
     * worth a job (default: none).
     */
    public Builder batchPreCopy(Optional<BatchPreCopy> batchPreCopy) {
      this.batchPreCopy = Objects.requireNonNull(batchPreCopy, "batchPreCopy");
      return this;
    }

    /**
     * Keeps the replica version published last, which the caller hands to the next replicator of
     * the same replica: a service builds one per run (default: this replicator's own).
     */
    public Builder lastPublished(AtomicReference<ReplicaHead> lastPublished) {
      this.lastPublished = Objects.requireNonNull(lastPublished, "lastPublished");
      return this;
    }

    /**
     * When the replica's state records since when it is known current, and with which group
     * (default: by runs that commit only).
     */
    public Builder knownCurrent(KnownCurrent knownCurrent) {
      this.knownCurrent = Objects.requireNonNull(knownCurrent, "knownCurrent");
      return this;
    }

    public TableReplicator build() {
      return new TableReplicator(this);
    }
  }

  private TableReplicator(Builder built) {
    ObjectStore source = built.source;
    ObjectStore target = built.target;
    ReplicationOptions options = built.options;
    ReplicaFiles replicaFiles = new ReplicaFiles(target, options.maxMetadataBytes());
    SourceHeadResolver headResolver =
        built
            .catalogs
            .sourceHead()
            .orElseGet(() -> new FileSystemHeadResolver(source, built.clock, options.settleTime()));
    this.registrar = built.catalogs.registrar();
    this.parts =
        new ReplicatorParts(
            source,
            target,
            built.clock,
            options,
            new CopyPlanner(source, target),
            new PlanExecutor(source, target, built.executor, built.progress),
            replicaFiles,
            headResolver,
            new PendingDeletion(target, RetentionSettings.defaults().batchSize()),
            built.batchPreCopy,
            new PromotionFence(
                source, options.maxMetadataBytes(), replicaFiles, headResolver, registrar),
            built.lastPublished,
            built.knownCurrent,
            new PrefixLedger(
                source,
                options.extraPrefixes(),
                options.allowedSourcePrefixes(),
                options.coalesce(),
                options.maxMetadataBytes()),
            new VersionStep(source, options.maxMetadataBytes(), built.clock));
    this.check = new HeadsCheck(parts, built.executor);
  }

  /**
   * Reads where source and replica stand, without the table's lease.
   *
   * @throws UncheckedIOException or a {@link ReplicationException} when either side cannot be read
   */
  public TableHeads read(String sourceLocation, String targetLocation) {
    return check.read(sourceLocation, targetLocation, Optional.empty()).heads();
  }

  /**
   * Replicates unless the replica already holds the source head. That is checked first without the
   * table's lease, so an unchanged table costs a few reads and no write; a changed one is
   * replicated from what the check read. Anything unreadable is left to the locked run to report.
   *
   * @throws TableReplicationException with the specific error; the replica is left as it was
   */
  public ReplicationResult replicateIfChanged(String sourceLocation, String targetLocation) {
    return replicateIfChanged(sourceLocation, targetLocation, Optional.empty());
  }

  /**
   * As {@link #replicateIfChanged(String, String)}, the replica's side of the check given as read
   * (by {@link ReplicaFiles#read(String, String, Optional, java.util.concurrent.Executor)}) while
   * the source was located, with the replica version this replicator's caller published last.
   */
  public ReplicationResult replicateIfChanged(
      String sourceLocation, String targetLocation, Optional<ReplicaFiles.Replica> replicaRead) {
    // before the source's head is read: every commit made before it is in what the run reads
    long fromMs = parts.clock().millis();
    Optional<HeadsCheck.Checked> checked;
    try {
      checked = Optional.of(check.read(sourceLocation, targetLocation, replicaRead));
    } catch (RuntimeException e) {
      checked = Optional.empty();
    }
    Optional<TableHeads> before = checked.map(HeadsCheck.Checked::heads);
    if (before.isPresent() && before.get().inSync()) {
      register(sourceLocation, targetLocation, before.get());
      if (before.get().source().settlesAtMs().isEmpty()
          && parts.knownCurrent().dueWhenIdle(checked.get().state(), fromMs)) {
        recordKnownCurrent(sourceLocation, targetLocation, fromMs);
      }
      return new ReplicationResult(ReplicationSummary.none(), before.get());
    }
    return replicate(
        sourceLocation,
        targetLocation,
        Optional.empty(),
        before,
        checked.map(HeadsCheck.Checked::state).map(ReplicaState::lastCommit),
        OptionalLong.of(fromMs));
  }

  /**
   * Records, under the table's lease, that the replica a check found current is known current from
   * {@code fromMs}. A lease another run holds is left to that run, whose own record follows; any
   * other error only delays the record, so it is logged and the check's result stands.
   */
  private void recordKnownCurrent(String sourceLocation, String targetLocation, long fromMs) {
    try (ObjectStore.Lock lock = parts.target().lock(targetLocation)) {
      LeasedReplica leased =
          new LeasedReplica(parts.target(), parts.replicaFiles(), targetLocation, lock);
      ReplicaState state = leased.state();
      ReplicaState recorded = parts.knownCurrent().recorded(state, fromMs);
      if (!recorded.equals(state)) {
        leased.writeState(recorded, "record the replica known current");
      }
    } catch (TableBusyException e) {
      LOG.debug("{}: known-current record left to the run holding the lease", sourceLocation);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "{}: cannot record replica {} as known current: {}",
          sourceLocation,
          targetLocation,
          e.getMessage());
    }
  }

  /**
   * @param sourceLocation the source table location
   * @param targetLocation the replica table location
   * @param sourceMetadata the source metadata file to replicate up to, instead of resolving the
   *     head
   * @throws TableReplicationException with the specific error; the replica is left as it was
   */
  public ReplicationSummary replicate(
      String sourceLocation, String targetLocation, Optional<String> sourceMetadata) {
    // a run to the source's head resolves it after this: it holds every commit made before
    OptionalLong fromMs =
        sourceMetadata.isEmpty() ? OptionalLong.of(parts.clock().millis()) : OptionalLong.empty();
    return replicate(
            sourceLocation,
            targetLocation,
            sourceMetadata,
            Optional.empty(),
            Optional.empty(),
            fromMs)
        .summary();
  }

  /**
   * What {@link #replicate(String, String, Optional)} would do, planned and counted, writing
   * nothing and taking no lease: the source versions to apply, the snapshots they add, the files
   * copied byte for byte with their bytes, and the files rewritten. Each version is merged as the
   * run would merge it, onto the replica as the versions before it would have left it.
   *
   * @throws TableReplicationException with the error the run would meet; nothing was written
   */
  public ReplicationSummary dryRun(
      String sourceLocation, String targetLocation, Optional<String> sourceMetadata) {
    refuseOverlap(sourceLocation, targetLocation);
    try {
      return new DryRun(parts).plan(sourceLocation, targetLocation, sourceMetadata);
    } catch (ReplicationException | UncheckedIOException e) {
      throw new TableReplicationException(sourceLocation, e);
    } catch (IOException e) {
      throw new TableReplicationException(
          sourceLocation, new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /**
   * @param before the heads read before the lease was taken: the source head is replicated up to it
   * @param checkedCommit the last commit the replica's state recorded when {@code before} was read
   * @param fromMs when the source's head was about to be read, for a run that ends with the replica
   *     holding it to record the replica known current from then; empty for a given source file
   */
  private ReplicationResult replicate(
      String sourceLocation,
      String targetLocation,
      Optional<String> sourceMetadata,
      Optional<TableHeads> before,
      Optional<ReplicaState.LastCommit> checkedCommit,
      OptionalLong fromMs) {
    String table = sourceLocation;
    refuseOverlap(sourceLocation, targetLocation);
    try (ObjectStore.Lock lock = parts.target().lock(targetLocation)) {
      LeasedReplica leased =
          new LeasedReplica(parts.target(), parts.replicaFiles(), targetLocation, lock);
      List<PathMapping.Prefix> mirrored = List.of();
      ReplicationResult result;
      while (true) {
        try {
          result =
              VersionRun.run(
                  parts, sourceLocation, leased, sourceMetadata, before, checkedCommit, fromMs);
          break;
        } catch (PathOutsideMappingException e) {
          if (!mirrored.isEmpty()) {
            throw e;
          }
          // once more with the mirror recorded, from where this attempt stopped: what it
          // published stays
          mirrored =
              parts
                  .ledger()
                  .recordMirror(table, sourceLocation, targetLocation, e, leased)
                  .orElseThrow(() -> e);
        }
      }
      if (!mirrored.isEmpty()) {
        result = result.withInferredMirror(mirrored);
      }
      register(table, targetLocation, result.heads());
      return result;
    } catch (PathOutsideMappingException e) {
      throw new TableReplicationException(
          table, parts.ledger().withHint(sourceLocation, targetLocation, e));
    } catch (ReplicationException | UncheckedIOException e) {
      throw new TableReplicationException(table, e);
    } catch (IOException e) {
      throw new TableReplicationException(table, new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /**
   * A replica inside its source's folder would be listed, copied and expired as the source's own
   * files (and a source inside its replica's folder the same way round): refused before the lease
   * is taken, in every spelling of the two locations.
   */
  private static void refuseOverlap(String sourceLocation, String targetLocation) {
    TableLocation source = TableLocation.of(sourceLocation);
    TableLocation replica = TableLocation.of(targetLocation);
    if (!source.overlaps(replica)) {
      return;
    }
    String where =
        source.sameAs(replica)
            ? "is the source itself"
            : source.contains(replica)
                ? "lies inside the source's folder"
                : "contains the source's folder";
    throw new TableReplicationException(
        sourceLocation,
        new BadInputException(
            "Cannot replicate table "
                + sourceLocation
                + " to "
                + targetLocation
                + ": the target "
                + where
                + ", so each side's files would be taken for the other's; nothing was written"));
  }

  /**
   * Moves the replica's catalog entry to the replica's current version, if the replica is
   * registered anywhere. Its errors are the table's: the replica itself stays as published.
   */
  private void register(String table, String targetLocation, TableHeads heads) {
    if (registrar.isEmpty() || heads.replica().isEmpty()) {
      return;
    }
    try {
      ReplicaRegistrar.Registration done =
          registrar.get().register(targetLocation, heads.replica().get().file());
      if (done == ReplicaRegistrar.Registration.REGISTERED
          || done == ReplicaRegistrar.Registration.ADVANCED) {
        LOG.info(
            "{}: {} {} at {}",
            table,
            registrar.get().describe(),
            done.name().toLowerCase(Locale.ROOT),
            heads.replica().get().file());
      } else if (done == ReplicaRegistrar.Registration.HELD) {
        // a replication group's entry: created and moved to each cut by the group's rounds
        LOG.debug(
            "{}: {} held for the group's next cut at {}",
            table,
            registrar.get().describe(),
            heads.replica().get().file());
      }
    } catch (ReplicationException e) {
      throw new TableReplicationException(table, e);
    }
  }
}
