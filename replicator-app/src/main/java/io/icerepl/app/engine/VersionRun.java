package io.icerepl.app.engine;

import io.icerepl.app.engine.fence.PromotionFence;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.replication.PrefixLedger;
import io.icerepl.app.engine.replication.VersionStep;
import io.icerepl.copier.copy.PlanExecutor;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.merge.VersionSequence;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run under the table's lease, replicating the source's new versions: where source and replica
 * stand, which source versions to apply, what prefixes they write under, each version as one
 * replica commit (merged by the {@link VersionStep} the dry run shares, its files copied, recorded
 * in the state, published), then what the run did. Keeps the state and the replica head as it left
 * them.
 */
final class VersionRun {
  private static final Logger LOG = LoggerFactory.getLogger(VersionRun.class);

  private final ReplicatorParts parts;
  private final String table;
  private final String sourceLocation;
  private final String targetLocation;
  private final LeasedReplica leased;

  /**
   * Read once, under the lease, and kept as this run writes it: only a run holding the lease writes
   * it.
   */
  private ReplicaState state;

  private Optional<PromotionFence.SwitchBack> switchBack;
  private SourceHeadResolver.Head resolved;
  private String headFile;
  private TableMetadata head;
  private Optional<Duration> settlesIn;
  private Optional<ReplicaHead> replica;
  private PrefixLedger.Learning prefixes;
  private final Counts counts = new Counts();
  private final Set<Long> pendingLost = new HashSet<>();

  private VersionRun(ReplicatorParts parts, String sourceLocation, LeasedReplica leased) {
    this.parts = parts;
    this.sourceLocation = sourceLocation;
    // messages name a table by its source location
    this.table = sourceLocation;
    this.targetLocation = leased.location();
    this.leased = leased;
  }

  /**
   * Runs, in its steps.
   *
   * @param sourceMetadata the source metadata file to replicate up to, instead of resolving the
   *     head
   * @param before the heads read before the lease was taken: the source head is replicated up to it
   * @param checkedCommit the last commit the replica's state recorded when {@code before} was read
   * @param fromMs when the source's head was about to be read, for a run that ends with the replica
   *     holding it to record the replica known current from then; empty for a given source file
   */
  static ReplicationResult run(
      ReplicatorParts parts,
      String sourceLocation,
      LeasedReplica leased,
      Optional<String> sourceMetadata,
      Optional<TableHeads> before,
      Optional<ReplicaState.LastCommit> checkedCommit,
      OptionalLong fromMs)
      throws IOException {
    VersionRun run = new VersionRun(parts, sourceLocation, leased);
    run.readHeads(sourceMetadata, before, checkedCommit);
    List<String> versions = run.versionsToApply();
    run.prefixes =
        parts
            .ledger()
            .learn(run.targetLocation, run.state, run.head, run.headFile, run.replica, versions);
    for (int i = 0; i < versions.size(); i++) {
      run.apply(versions.get(i), i == versions.size() - 1);
    }
    return run.finish(fromMs);
  }

  /** A source metadata file given by its name alone lies in the source's metadata folder. */
  static String resolveGiven(String sourceLocation, String file) {
    return file.contains("/")
        ? file
        : TableLayout.join(TableLayout.metadataFolder(sourceLocation), file);
  }

  /**
   * The state, the source head and the replica head, each read again under the lease only where the
   * check before it may be stale; a promoted replica is refused or switched back here.
   */
  private void readHeads(
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
        parts
            .fence()
            .check(
                table,
                sourceLocation,
                before.map(
                    b -> new PromotionFence.SourceHead(b.source().file(), b.sourceMetadata())),
                state,
                leased);
    if (state.promotion() != null) {
      state = leased.state(); // a promotion the check ended is gone from it
    }
    resolved =
        sourceMetadata
            .map(f -> SourceHeadResolver.Head.given(resolveGiven(sourceLocation, f)))
            .or(() -> before.map(TableHeads::source))
            .orElseGet(() -> parts.headResolver().head(sourceLocation));
    headFile = resolved.file();
    settlesIn =
        resolved.settlesAtMs().isPresent()
            ? Optional.of(
                Duration.ofMillis(
                    Math.max(0, resolved.settlesAtMs().getAsLong() - parts.clock().millis())))
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
                () ->
                    ReplicaFiles.readMetadata(
                        parts.source(), headFile, parts.options().maxMetadataBytes()));
    // read again under the lease when another run may have committed since the check
    replica =
        switchBack.isPresent()
            ? switchBack.map(PromotionFence.SwitchBack::replica)
            : noCommitSince
                ? checkedHead
                : parts
                    .replicaFiles()
                    .head(
                        table,
                        targetLocation,
                        before
                            .flatMap(TableHeads::replica)
                            .or(() -> Optional.ofNullable(parts.lastPublished().get())),
                        state);
    if (replica.isPresent()) {
      MetadataMerge.checkSameTable(head, replica.get().metadata(), headFile, replica.get().file());
      // files an interrupted expiry left half deleted must not be taken as in place
      state = parts.pendingDeletion().finish(leased, replica.get().metadata(), state);
    }
  }

  /** The source versions after the one the replica (or the switch-back) last applied. */
  private List<String> versionsToApply() {
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
            parts.options().coalesce());
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

  /**
   * One source version as one replica commit: merged, its files copied, recorded in the state,
   * published. A version whose files the source removed first is folded into the next, unless it is
   * the last.
   */
  private void apply(String file, boolean last) throws IOException {
    Optional<VersionStep.Merged> merged =
        parts
            .step()
            .merge(new VersionStep.Version(file, last, headFile, head), state, replica, prefixes);
    if (merged.isEmpty()) {
      LOG.warn("{}: source version {} is gone; folding it into the next", table, file);
      counts.skipped.add(file);
      return;
    }
    MergeResult merge = merged.get().merge();
    PathMapping mapping = merged.get().mapping();
    state = prefixes.record(leased, state);
    Optional<TableMetadata> replicaMetadata = replica.map(ReplicaHead::metadata);
    if (replica.isEmpty() && parts.batchPreCopy().isPresent()) {
      parts
          .batchPreCopy()
          .get()
          .run(table, parts.source(), parts.target(), targetLocation, file, merge, mapping, leased);
    }
    PlanExecutor.Outcome outcome;
    try {
      outcome =
          parts
              .executor()
              .execute(
                  table,
                  sink -> parts.planner().plan(table, merge, replicaMetadata, mapping, sink),
                  merged.get().placement(),
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
    state =
        parts
            .pendingDeletion()
            .rememberReplacedStatistics(leased, state, replica, merge.metadata());
    ReplicaFiles.RecordedCommit recorded =
        leased.recordCommit(state, replica, version, merge.metadata());
    state = recorded.state();
    TableMetadata committed = recorded.metadata();
    String published = leased.publish(table, version, committed);
    replica = Optional.of(new ReplicaHead(version, published, committed));
    parts.lastPublished().set(replica.get());
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
  private ReplicationResult finish(OptionalLong fromMs) throws IOException {
    if (switchBack.isPresent() && counts.versions > 0) {
      parts.fence().end(table, leased);
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
      ReplicaState recorded = parts.knownCurrent().recorded(state, fromMs.getAsLong());
      if (!recorded.equals(state)) {
        leased.writeState(recorded, "record the replica known current");
        state = recorded;
      }
    }
    return new ReplicationResult(summary, heads);
  }

  /** What the run committed so far, and the versions it folded into the next. */
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
