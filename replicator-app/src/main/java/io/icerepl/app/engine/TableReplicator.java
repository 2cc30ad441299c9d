package io.icerepl.app.engine;

import io.icerepl.app.engine.batch.BatchPreCopy;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.app.engine.fence.PromotionFence;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.retention.PendingDeletion;
import io.icerepl.app.engine.retention.RetentionSettings;
import io.icerepl.copier.copy.CopyPlanner;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.copy.PlanCounter;
import io.icerepl.copier.copy.PlanExecutor;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.error.TableBusyException;
import io.icerepl.merge.merge.MergeRequest;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.merge.ReplicaCommits;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.merge.VersionSequence;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.MirrorMapping;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.PathSpelling;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.path.SourcePrefixes;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.path.TableLocation;
import io.icerepl.merge.state.KnownCurrent;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

  private final ObjectStore source;
  private final ObjectStore target;
  private final Clock clock;
  private final ReplicationOptions options;
  private final CopyPlanner planner;
  private final PlanExecutor executor;

  /** Runs the reads of a check that do not wait for one another. */
  private final ExecutorService reads;

  private final ReplicaFiles replicaFiles;
  private final SourceHeadResolver headResolver;
  private final Optional<ReplicaRegistrar> registrar;
  private final PendingDeletion pendingDeletion;
  private final Optional<BatchPreCopy> batchPreCopy;
  private final PromotionFence fence;

  /**
   * The replica version this replicator (or the caller's earlier replicators of the same replica)
   * published last: a version file is written once and never replaced, so the next run need not
   * read and parse it again while it is still the replica's head. One entry, whichever table it
   * was.
   */
  private final AtomicReference<ReplicaHead> lastPublished;

  private final KnownCurrent knownCurrent;

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
    this.source = built.source;
    this.target = built.target;
    this.clock = built.clock;
    this.options = built.options;
    this.planner = new CopyPlanner(source, target);
    this.executor = new PlanExecutor(source, target, built.executor, built.progress);
    this.reads = built.executor;
    this.replicaFiles = new ReplicaFiles(target, options.maxMetadataBytes());
    this.headResolver =
        built
            .catalogs
            .sourceHead()
            .orElseGet(() -> new FileSystemHeadResolver(source, clock, options.settleTime()));
    this.registrar = built.catalogs.registrar();
    this.pendingDeletion = new PendingDeletion(target, RetentionSettings.defaults().batchSize());
    this.batchPreCopy = built.batchPreCopy;
    this.lastPublished = built.lastPublished;
    this.knownCurrent = built.knownCurrent;
    this.fence =
        new PromotionFence(
            source, options.maxMetadataBytes(), replicaFiles, headResolver, registrar);
  }

  /**
   * Reads where source and replica stand, without the table's lease.
   *
   * @throws UncheckedIOException or a {@link ReplicationException} when either side cannot be read
   */
  public TableHeads read(String sourceLocation, String targetLocation) {
    return check(sourceLocation, targetLocation, Optional.empty()).heads();
  }

  /**
   * What a check without the lease read: the heads, and the replica's state as read with them.
   *
   * @param state its last recorded commit tells a run that takes the lease whether any commit was
   *     recorded since
   */
  private record Checked(TableHeads heads, ReplicaState state) {}

  /**
   * The source side (its head, then its metadata) and the replica side (its folder's listing, hint
   * and state) are read at the same time: neither depends on the other, and a check costs the
   * longer of the two, not their sum.
   */
  private Checked check(
      String sourceLocation, String targetLocation, Optional<ReplicaFiles.Replica> replicaRead) {
    CompletableFuture<SourceRead> sourceRead =
        CompletableFuture.supplyAsync(
            () -> {
              SourceHeadResolver.Head resolved = headResolver.head(sourceLocation);
              return new SourceRead(
                  resolved,
                  ReplicaFiles.readMetadata(source, resolved.file(), options.maxMetadataBytes()));
            },
            reads);
    try {
      ReplicaFiles.Replica replica =
          replicaRead.isPresent()
              ? replicaRead.get()
              : replicaFiles.read(
                  sourceLocation, targetLocation, Optional.ofNullable(lastPublished.get()), reads);
      SourceRead read = joinSource(sourceRead);
      return new Checked(
          new TableHeads(
              read.head(), read.metadata(), replica.head(), replica.state().expiredSnapshotIds()),
          replica.state());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the heads of "
              + sourceLocation
              + " and "
              + targetLocation
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private record SourceRead(SourceHeadResolver.Head head, TableMetadata metadata) {}

  /** The source's own error, as reading it on this thread would have thrown it. */
  private static SourceRead joinSource(CompletableFuture<SourceRead> read) {
    try {
      return read.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
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
    long fromMs = clock.millis();
    Optional<Checked> checked;
    try {
      checked = Optional.of(check(sourceLocation, targetLocation, replicaRead));
    } catch (RuntimeException e) {
      checked = Optional.empty();
    }
    Optional<TableHeads> before = checked.map(Checked::heads);
    if (before.isPresent() && before.get().inSync()) {
      register(sourceLocation, targetLocation, before.get());
      if (before.get().source().settlesAtMs().isEmpty()
          && knownCurrent.dueWhenIdle(checked.get().state(), fromMs)) {
        recordKnownCurrent(sourceLocation, targetLocation, fromMs);
      }
      return new ReplicationResult(ReplicationSummary.none(), before.get());
    }
    return replicate(
        sourceLocation,
        targetLocation,
        Optional.empty(),
        before,
        checked.map(Checked::state).map(ReplicaState::lastCommit),
        OptionalLong.of(fromMs));
  }

  /**
   * Records, under the table's lease, that the replica a check found current is known current from
   * {@code fromMs}. A lease another run holds is left to that run, whose own record follows; any
   * other error only delays the record, so it is logged and the check's result stands.
   */
  private void recordKnownCurrent(String sourceLocation, String targetLocation, long fromMs) {
    try (ObjectStore.Lock lock = target.lock(targetLocation)) {
      LeasedReplica leased = new LeasedReplica(target, replicaFiles, targetLocation, lock);
      ReplicaState state = leased.state();
      ReplicaState recorded = knownCurrent.recorded(state, fromMs);
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
        sourceMetadata.isEmpty() ? OptionalLong.of(clock.millis()) : OptionalLong.empty();
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
    String table = sourceLocation;
    refuseOverlap(sourceLocation, targetLocation);
    try {
      ReplicaState state = replicaFiles.state(targetLocation);
      if (state.promotion() != null) {
        throw PromotedReplicaException.of(table, targetLocation, state.promotion(), null);
      }
      String headFile =
          sourceMetadata
              .map(f -> resolveGiven(sourceLocation, f))
              .orElseGet(() -> headResolver.head(sourceLocation).file());
      TableMetadata head = ReplicaFiles.readMetadata(source, headFile, options.maxMetadataBytes());
      Optional<ReplicaHead> replica = replicaFiles.head(table, targetLocation);
      if (replica.isPresent()) {
        MetadataMerge.checkSameTable(
            head, replica.get().metadata(), headFile, replica.get().file());
      }
      List<String> versions =
          VersionSequence.toApply(
              head,
              headFile,
              replica.flatMap(ReplicaHead::lastSourceFile),
              replica.flatMap(ReplicaHead::lastSourceUpdatedMs),
              options.coalesce());
      try {
        return count(
            table,
            targetLocation,
            state,
            state.mirrorPrefixes(),
            head,
            headFile,
            replica,
            versions);
      } catch (PathOutsideMappingException e) {
        Optional<MirrorMapping.Inferred> mirror =
            mirrorCovering(sourceLocation, targetLocation, state, e);
        if (mirror.isEmpty()) {
          throw new PathOutsideMappingException(
              e.path().orElse(null),
              e.getMessage() + outsideHint(sourceLocation, targetLocation, e.path()));
        }
        return count(
                table,
                targetLocation,
                state,
                mirror.get().prefixes(),
                head,
                headFile,
                replica,
                versions)
            .withInferredMirror(mirror.get().prefixes());
      }
    } catch (ReplicationException | UncheckedIOException e) {
      throw new TableReplicationException(table, e);
    } catch (IOException e) {
      throw new TableReplicationException(table, new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /** An existing replica (an original failed back into) keeps its own spelling of its location. */
  private static String spelled(String targetLocation, Optional<ReplicaHead> replica) {
    return replica
        .map(r -> PathSpelling.as(targetLocation, r.metadata().location()))
        .orElse(targetLocation);
  }

  /** The prefixes configured, remembered in the replica's state, and its mirror. */
  private SourcePrefixes prefixesOf(
      String spelled, ReplicaState state, List<PathMapping.Prefix> mirror) {
    return SourcePrefixes.of(
            spelled,
            options.extraPrefixes(),
            options.allowedSourcePrefixes(),
            state.sourcePrefixes())
        .withMirror(mirror);
  }

  /**
   * The replication groups' cut tags a source that was itself a replica carries, as its own state
   * records them: a switched-back original carries the group's tags of its fail-back and of the
   * promoted tables it was failed back from. They are that table's bookkeeping, not refs of its
   * writers: replicated, they would clash with the replica's own group tags of the same names. Only
   * a source of a promoted line ({@code replicator.epoch}) can have any, so no other source's state
   * is read.
   */
  private Map<String, Long> sourceCutTags(TableMetadata metadata) {
    if (!metadata.properties().containsKey(ReplicaProperties.EPOCH)) {
      return Map.of();
    }
    try {
      return new ReplicaFiles(source, options.maxMetadataBytes())
          .state(metadata.location())
          .cutTags();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the replicator state of source " + metadata.location(), e);
    }
  }

  /** The merge of one source version, as the run and the dry run both ask for it. */
  private MergeRequest.Builder mergeRequest(
      TableMetadata metadata,
      String file,
      String spelled,
      PathMapping mapping,
      ReplicaState state) {
    Map<String, Long> dropped = new HashMap<>(sourceCutTags(metadata));
    dropped.putAll(state.droppedRefs());
    return MergeRequest.builder()
        .source(metadata, file)
        .targetLocation(spelled)
        .mapping(mapping)
        .commitTimeMs(clock.millis())
        .expiredSnapshotIds(state.expiredSnapshotIds())
        .droppedRefs(dropped)
        .keptRefs(state.keptRefs())
        .cutTags(state.cutTags())
        .previousVersionsMax(ReplicaCommits.previousVersionsMax(metadata));
  }

  /** The dry run's versions, each merged and planned into one {@link PlanCounter}. */
  private ReplicationSummary count(
      String table,
      String targetLocation,
      ReplicaState state,
      List<PathMapping.Prefix> mirror,
      TableMetadata head,
      String headFile,
      Optional<ReplicaHead> replica,
      List<String> versions) {
    String spelled = spelled(targetLocation, replica);
    SourcePrefixes prefixes = prefixesOf(spelled, state, mirror);
    boolean formerLayout = replica.isPresent() && state.sourcePrefixes().isEmpty();
    prefixes = learnEarlierVersions(prefixes, head, headFile, replica, versions);
    PlanCounter counter = new PlanCounter();
    Optional<TableMetadata> replicaMetadata = replica.map(ReplicaHead::metadata);
    Optional<String> replicaFile = replica.map(ReplicaHead::file);
    long version = replica.map(ReplicaHead::version).orElse(0L);
    int snapshots = 0;
    List<String> wouldPublish = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (int i = 0; i < versions.size(); i++) {
      String file = versions.get(i);
      TableMetadata metadata;
      try {
        metadata =
            file.equals(headFile)
                ? head
                : ReplicaFiles.readMetadata(source, file, options.maxMetadataBytes());
      } catch (MissingFileException e) {
        if (i == versions.size() - 1) {
          throw e;
        }
        skipped.add(file);
        continue;
      }
      if (formerLayout) {
        prefixes = prefixes.learnFormerLayout(metadata);
        formerLayout = false;
      }
      prefixes = prefixes.learn(metadata, file).learnFolderOf(file);
      PathMapping mapping = prefixes.mapping();
      MergeRequest.Builder request = mergeRequest(metadata, file, spelled, mapping, state);
      if (replicaMetadata.isPresent()) {
        request.replica(replicaMetadata.get(), replicaFile.get());
      }
      MergeResult merge = MetadataMerge.merge(request.build());
      Optional<TableMetadata> before = replicaMetadata;
      planner.plan(table, merge, before, mapping, counter);
      version++;
      replicaMetadata = Optional.of(merge.metadata());
      replicaFile = Optional.of(ReplicaLayout.metadataFile(targetLocation, version));
      wouldPublish.add(replicaFile.get());
      snapshots += merge.addedSnapshots().size();
    }
    return ReplicationSummary.builder()
        .versionsApplied(wouldPublish.size())
        .snapshotsAdded(snapshots)
        .filesCopied(counter.filesCopied())
        .bytesCopied(counter.bytesCopied())
        .filesRewritten(counter.filesRewritten())
        .replicaMetadataFiles(wouldPublish)
        .skippedVersions(skipped)
        .build();
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
    try (ObjectStore.Lock lock = target.lock(targetLocation)) {
      LeasedReplica leased = new LeasedReplica(target, replicaFiles, targetLocation, lock);
      List<PathMapping.Prefix> mirrored = List.of();
      ReplicationResult result;
      while (true) {
        try {
          result =
              run(
                  table,
                  sourceLocation,
                  targetLocation,
                  sourceMetadata,
                  before,
                  checkedCommit,
                  leased,
                  fromMs);
          break;
        } catch (PathOutsideMappingException e) {
          if (!mirrored.isEmpty()) {
            throw e;
          }
          // once more with the mirror recorded, from where this attempt stopped: what it
          // published stays
          mirrored =
              recordMirror(table, sourceLocation, targetLocation, e, leased).orElseThrow(() -> e);
        }
      }
      if (!mirrored.isEmpty()) {
        result = result.withInferredMirror(mirrored);
      }
      register(table, targetLocation, result.heads());
      return result;
    } catch (PathOutsideMappingException e) {
      throw new TableReplicationException(
          table,
          new PathOutsideMappingException(
              e.path().orElse(null),
              e.getMessage() + outsideHint(sourceLocation, targetLocation, e.path())));
    } catch (ReplicationException | UncheckedIOException e) {
      throw new TableReplicationException(table, e);
    } catch (IOException e) {
      throw new TableReplicationException(table, new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /**
   * Records the mirror mapping (see {@link MirrorMapping}) in the replica's state when it covers
   * the path nothing else did, before any file is put under it, so every later run maps alike.
   *
   * @return the mirror recorded, or empty when there is none to infer, one is already recorded, or
   *     it does not cover the path either
   */
  private Optional<List<PathMapping.Prefix>> recordMirror(
      String table,
      String sourceLocation,
      String targetLocation,
      PathOutsideMappingException outside,
      LeasedReplica leased)
      throws IOException {
    ReplicaState state = leased.state();
    Optional<MirrorMapping.Inferred> inferred =
        mirrorCovering(sourceLocation, targetLocation, state, outside);
    if (inferred.isEmpty()) {
      return Optional.empty();
    }
    List<PathMapping.Prefix> mirror = inferred.get().prefixes();
    leased.writeState(state.withMirrorPrefixes(mirror), "record the inferred mirror mapping");
    LOG.warn(
        "{}: no version of the table's metadata declares a prefix holding {}; source and replica"
            + " both end in {}, so files no metadata declares are mirrored: {}",
        table,
        outside.path().get(),
        inferred.get().commonPath(),
        describe(mirror));
    return Optional.of(mirror);
  }

  /**
   * The mirror mapping that would cover the path nothing else did: none when the replica already
   * has one recorded (it did not cover the path), when the exception names no path, or when the two
   * locations imply no mirror holding it.
   */
  private Optional<MirrorMapping.Inferred> mirrorCovering(
      String sourceLocation,
      String targetLocation,
      ReplicaState state,
      PathOutsideMappingException outside) {
    if (outside.path().isEmpty() || !state.mirrorPrefixes().isEmpty()) {
      return Optional.empty();
    }
    return MirrorMapping.infer(sourceLocation, targetLocation, options.allowedSourcePrefixes())
        .filter(m -> PathMapping.of(m.prefixes()).covers(outside.path().get()));
  }

  /** Mirror pairs as {@code source -> target}, for messages. */
  private static String describe(List<PathMapping.Prefix> mirror) {
    return String.join(", ", mirror.stream().map(p -> p.source() + " -> " + p.target()).toList());
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
   * One run under the lease, in its steps: where source and replica stand, which source versions to
   * apply, what prefixes they write under, each version as one replica commit, then what the run
   * did.
   */
  private ReplicationResult run(
      String table,
      String sourceLocation,
      String targetLocation,
      Optional<String> sourceMetadata,
      Optional<TableHeads> before,
      Optional<ReplicaState.LastCommit> checkedCommit,
      LeasedReplica leased,
      OptionalLong fromMs)
      throws IOException {
    Run run = new Run(table, sourceLocation, targetLocation, leased);
    run.readHeads(sourceMetadata, before, checkedCommit);
    List<String> versions = run.versionsToApply();
    run.learnPrefixes(versions);
    for (int i = 0; i < versions.size(); i++) {
      run.apply(versions.get(i), i == versions.size() - 1);
    }
    return run.finish(fromMs);
  }

  /** What one run reads and writes as it goes: the state and replica head as it left them. */
  private final class Run {
    final String table;
    final String sourceLocation;
    final String targetLocation;
    final LeasedReplica leased;

    /**
     * Read once, under the lease, and kept as this run writes it: only a run holding the lease
     * writes it.
     */
    ReplicaState state;

    Optional<PromotionFence.SwitchBack> switchBack;
    SourceHeadResolver.Head resolved;
    String headFile;
    TableMetadata head;
    Optional<Duration> settlesIn;
    Optional<ReplicaHead> replica;

    /** The replica's location as its files spell it. */
    String spelled;

    SourcePrefixes prefixes;
    boolean formerLayout;
    final Counts counts = new Counts();
    final Set<Long> pendingLost = new HashSet<>();

    Run(String table, String sourceLocation, String targetLocation, LeasedReplica leased) {
      this.table = table;
      this.sourceLocation = sourceLocation;
      this.targetLocation = targetLocation;
      this.leased = leased;
    }

    /**
     * The state, the source head and the replica head, each read again under the lease only where
     * the check before it may be stale; a promoted replica is refused or switched back here.
     */
    void readHeads(
        Optional<String> sourceMetadata,
        Optional<TableHeads> before,
        Optional<ReplicaState.LastCommit> checkedCommit)
        throws IOException {
      state = leased.state();
      // every commit of a replicator, retention's too, is recorded in the state before it is
      // published, under the lease: when the check found the recorded commit published and the
      // record is still the same, nothing was committed since, and the replica's head is the one
      // the check read and verified
      Optional<ReplicaHead> checkedHead = before.flatMap(TableHeads::replica);
      boolean noCommitSince =
          state.promotion() == null
              && state.lastCommit() != null
              && checkedCommit.equals(Optional.of(state.lastCommit()))
              && checkedHead
                  .map(ReplicaHead::version)
                  .equals(Optional.of(state.lastCommit().version()));
      switchBack =
          fence.check(
              table,
              sourceLocation,
              before.map(b -> new PromotionFence.SourceHead(b.source().file(), b.sourceMetadata())),
              state,
              leased);
      if (state.promotion() != null) {
        state = leased.state(); // a promotion the check ended is gone from it
      }
      resolved =
          sourceMetadata
              .map(f -> SourceHeadResolver.Head.given(resolveGiven(sourceLocation, f)))
              .or(() -> before.map(TableHeads::source))
              .orElseGet(() -> headResolver.head(sourceLocation));
      headFile = resolved.file();
      settlesIn =
          resolved.settlesAtMs().isPresent()
              ? Optional.of(
                  Duration.ofMillis(
                      Math.max(0, resolved.settlesAtMs().getAsLong() - clock.millis())))
              : Optional.empty();
      settlesIn.ifPresent(
          d ->
              LOG.info(
                  "{}: a newer source metadata file is younger than the settle time; replicating up to {}",
                  table,
                  headFile));
      head =
          before
              .filter(b -> b.source().file().equals(headFile))
              .map(TableHeads::sourceMetadata)
              .orElseGet(
                  () -> ReplicaFiles.readMetadata(source, headFile, options.maxMetadataBytes()));
      // read again under the lease when another run may have committed since the check
      replica =
          switchBack.isPresent()
              ? switchBack.map(PromotionFence.SwitchBack::replica)
              : noCommitSince
                  ? checkedHead
                  : replicaFiles.head(
                      table,
                      targetLocation,
                      before
                          .flatMap(TableHeads::replica)
                          .or(() -> Optional.ofNullable(lastPublished.get())),
                      state);
      if (replica.isPresent()) {
        MetadataMerge.checkSameTable(
            head, replica.get().metadata(), headFile, replica.get().file());
        // files an interrupted expiry left half deleted must not be taken as in place
        state = pendingDeletion.finish(leased, replica.get().metadata(), state);
      }
    }

    /** The source versions after the one the replica (or the switch-back) last applied. */
    List<String> versionsToApply() {
      List<String> versions =
          VersionSequence.toApply(
              head,
              headFile,
              switchBack.isPresent()
                  ? switchBack.map(PromotionFence.SwitchBack::resumeAfter)
                  : replica.flatMap(ReplicaHead::lastSourceFile),
              switchBack.isPresent()
                  ? switchBack.map(PromotionFence.SwitchBack::resumeAfterUpdatedMs)
                  : replica.flatMap(ReplicaHead::lastSourceUpdatedMs),
              options.coalesce());
      if (versions.isEmpty()) {
        LOG.info("{}: replica {} is up to date with {}", table, targetLocation, headFile);
      } else {
        LOG.info(
            "{}: {} source version(s) to apply to {}: {}",
            table,
            versions.size(),
            targetLocation,
            versions);
      }
      return versions;
    }

    /** Every prefix the table wrote under, as remembered and as the versions to apply declare. */
    void learnPrefixes(List<String> versions) {
      spelled = spelled(targetLocation, replica);
      prefixes = prefixesOf(spelled, state, state.mirrorPrefixes());
      formerLayout = replica.isPresent() && state.sourcePrefixes().isEmpty();
      prefixes = learnEarlierVersions(prefixes, head, headFile, replica, versions);
    }

    /**
     * One source version as one replica commit: merged, its files copied, recorded in the state,
     * published. A version whose files the source removed first is folded into the next, unless it
     * is the last.
     */
    void apply(String file, boolean last) throws IOException {
      TableMetadata metadata;
      try {
        metadata =
            file.equals(headFile)
                ? head
                : ReplicaFiles.readMetadata(source, file, options.maxMetadataBytes());
      } catch (MissingFileException e) {
        if (last) {
          throw e;
        }
        LOG.warn("{}: source version {} is gone; folding it into the next", table, file);
        counts.skipped.add(file);
        return;
      }
      if (formerLayout) {
        prefixes = prefixes.learnFormerLayout(metadata);
        formerLayout = false;
      }
      prefixes = prefixes.learn(metadata, file).learnFolderOf(file);
      ReplicaDomain.Placement placement = prefixes.placement();
      PathMapping mapping = placement.mapping();
      MergeRequest.Builder request = mergeRequest(metadata, file, spelled, mapping, state);
      replica.ifPresent(r -> request.replica(r.metadata(), r.file()));
      MergeResult merge = MetadataMerge.merge(request.build());
      state = rememberPrefixes(leased, state, prefixes);
      Optional<TableMetadata> replicaMetadata = replica.map(ReplicaHead::metadata);
      if (replica.isEmpty() && batchPreCopy.isPresent()) {
        batchPreCopy.get().run(table, source, target, targetLocation, file, merge, mapping, leased);
      }
      PlanExecutor.Outcome outcome;
      try {
        outcome =
            executor.execute(
                table,
                sink -> planner.plan(table, merge, replicaMetadata, mapping, sink),
                placement,
                leased::removeFailedCopies);
      } catch (MissingFileException e) {
        if (last) {
          throw e;
        }
        LOG.warn(
            "{}: cannot complete source version {} ({}); folding it into the next",
            table,
            file,
            e.getMessage());
        counts.skipped.add(file);
        merge.addedSnapshots().forEach(s -> pendingLost.add(s.snapshotId()));
        return;
      }
      commit(file, merge, outcome);
    }

    /** Records the commit in the state, then publishes it: the state always knows the newest. */
    private void commit(String file, MergeResult merge, PlanExecutor.Outcome outcome)
        throws IOException {
      long version = replica.map(ReplicaHead::version).orElse(0L) + 1;
      state = pendingDeletion.rememberReplacedStatistics(leased, state, replica, merge.metadata());
      ReplicaFiles.RecordedCommit recorded =
          leased.recordCommit(state, replica, version, merge.metadata());
      state = recorded.state();
      TableMetadata committed = recorded.metadata();
      String published = leased.publish(table, version, committed);
      replica = Optional.of(new ReplicaHead(version, published, committed));
      lastPublished.set(replica.get());
      counts.add(merge, outcome, published);
      LOG.info(
          "{}: committed replica version {} from {} ({} new snapshots, {} files copied, {} rewritten)",
          table,
          version,
          file,
          merge.addedSnapshots().size(),
          outcome.filesCopied(),
          outcome.filesRewritten());
    }

    /** Ends a switch-back's promotion once it committed, and says what the run did. */
    ReplicationResult finish(OptionalLong fromMs) throws IOException {
      if (switchBack.isPresent() && counts.versions > 0) {
        fence.end(table, leased);
      }
      Set<Long> held = new HashSet<>();
      replica.ifPresent(r -> r.metadata().snapshots().forEach(s -> held.add(s.snapshotId())));
      List<Long> lost = pendingLost.stream().filter(id -> !held.contains(id)).sorted().toList();
      if (!lost.isEmpty()) {
        LOG.warn(
            "{}: could not keep snapshots {}: the source removed their files first", table, lost);
      }
      ReplicationSummary summary =
          ReplicationSummary.builder()
              .versionsApplied(counts.versions)
              .snapshotsAdded(counts.snapshots)
              .filesCopied(counts.filesCopied)
              .bytesCopied(counts.bytesCopied)
              .filesRewritten(counts.filesRewritten)
              .replicaMetadataFiles(counts.published)
              .skippedVersions(counts.skipped)
              .lostSnapshots(lost)
              .settlesIn(settlesIn)
              .build();
      TableHeads heads = new TableHeads(resolved, head, replica, state.expiredSnapshotIds());
      if (fromMs.isPresent() && heads.inSync() && settlesIn.isEmpty()) {
        ReplicaState recorded = knownCurrent.recorded(state, fromMs.getAsLong());
        if (!recorded.equals(state)) {
          leased.writeState(recorded, "record the replica known current");
          state = recorded;
        }
      }
      return new ReplicationResult(summary, heads);
    }
  }

  /**
   * Learns the prefixes of source versions this run does not apply: on a backfill every earlier
   * version the metadata-log names (its files may still name files under prefixes the head no
   * longer declares), when coalescing the versions skipped. A version already gone still tells the
   * folder it was written in.
   */
  private SourcePrefixes learnEarlierVersions(
      SourcePrefixes prefixes,
      TableMetadata head,
      String headFile,
      Optional<ReplicaHead> replica,
      List<String> versions) {
    List<String> earlier;
    if (replica.isEmpty()) {
      prefixes = prefixes.learn(head, headFile);
      earlier = head.metadataLog().stream().map(TableMetadata.LogEntry::metadataFile).toList();
    } else if (options.coalesce() && !versions.isEmpty()) {
      earlier =
          VersionSequence.toApply(
                  head,
                  headFile,
                  replica.flatMap(ReplicaHead::lastSourceFile),
                  replica.flatMap(ReplicaHead::lastSourceUpdatedMs),
                  false)
              .stream()
              .filter(f -> !versions.contains(f))
              .toList();
    } else {
      return prefixes;
    }
    for (String file : earlier) {
      try {
        prefixes =
            prefixes.learnEarlier(
                ReplicaFiles.readMetadata(source, file, options.maxMetadataBytes()), file);
      } catch (MissingFileException e) {
        prefixes = prefixes.learnFolderOf(file);
      }
    }
    return prefixes;
  }

  /**
   * Recorded before any file is put under a newly learned prefix, so every later run maps it alike.
   *
   * @param state the state as this run read and wrote it
   * @return the state as written
   */
  private ReplicaState rememberPrefixes(
      LeasedReplica leased, ReplicaState state, SourcePrefixes prefixes) throws IOException {
    if (state.sourcePrefixes().equals(prefixes.learned())) {
      return state;
    }
    ReplicaState learned = state.withSourcePrefixes(prefixes.learned());
    leased.writeState(learned, "record the source prefixes");
    return learned;
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

  /**
   * What declares a prefix, when no version of the table's metadata did: a {@code --map} pair for
   * the file's folder, or the mirror a replica location ending in the source's relative path gives.
   */
  private String outsideHint(
      String sourceLocation, String targetLocation, Optional<String> outside) {
    if (!options.allowedSourcePrefixes().isEmpty()) {
      return "; the table may only name files under "
          + options.allowedSourcePrefixes()
          + " and the prefixes its target maps";
    }
    String example =
        outside
            .filter(p -> p.lastIndexOf('/') > 0)
            .map(p -> p.substring(0, p.lastIndexOf('/')))
            .map(folder -> folder + "=" + SourcePrefixes.replicaFolderFor(targetLocation, folder))
            .orElse("<source-prefix>=<target-prefix>");
    Optional<MirrorMapping.Inferred> mirror =
        MirrorMapping.infer(sourceLocation, targetLocation, List.of());
    String why =
        mirror.isPresent()
            ? "; no version of the table's metadata declares a prefix holding it, nor does the"
                + " mirror "
                + describe(mirror.get().prefixes())
            : "; no version of the table's metadata declares a prefix holding it";
    return why + ": map one with --map " + example;
  }

  private String resolveGiven(String sourceLocation, String file) {
    return file.contains("/")
        ? file
        : TableLayout.join(TableLayout.metadataFolder(sourceLocation), file);
  }

  private static final class Counts {
    int versions;
    int snapshots;
    long filesCopied;
    long bytesCopied;
    long filesRewritten;
    final List<String> published = new ArrayList<>();
    final List<String> skipped = new ArrayList<>();

    void add(MergeResult merge, PlanExecutor.Outcome outcome, String file) {
      versions++;
      snapshots += merge.addedSnapshots().size();
      filesCopied += outcome.filesCopied();
      bytesCopied += outcome.bytesCopied();
      filesRewritten += outcome.filesRewritten();
      published.add(file);
    }
  }
}
