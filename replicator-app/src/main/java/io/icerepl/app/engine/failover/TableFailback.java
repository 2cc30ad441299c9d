package io.icerepl.app.engine.failover;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.copy.CopyPlanner;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.copy.PlanExecutor;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.failover.FailbackLines;
import io.icerepl.merge.failover.Orphans;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.head.SourceHead;
import io.icerepl.merge.merge.MergeRequest;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.merge.ReplicaCommits;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.SnapshotGraph;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.path.SourcePrefixes;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.path.TableLocation;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the original location of a promoted table into its replica, without losing a commit: the
 * first run writes the original's next version (never one of its own files) holding the promoted
 * history plus the orphans only the old source had, under tags; every later run is ordinary
 * replication that keeps those tags, which the original's replica state records.
 *
 * <p>Restartable: the tags are recorded in the state before anything is copied (a rerun reuses
 * them), files are published before the metadata that names them, and the metadata file is written
 * only if absent. Until the failback version is published the original reads as it was.
 */
public final class TableFailback {
  private static final Logger LOG = LoggerFactory.getLogger(TableFailback.class);

  /** The prefix of the orphan tags' names unless one is given. */
  public static final String DEFAULT_TAG_PREFIX = "failback-orphan";

  private final ObjectStore primary;
  private final ObjectStore original;
  private final Clock clock;
  private final ExecutorService executor;
  private final ReplicationOptions options;
  private final String tagPrefix;
  private final ReplicaFiles originalFiles;
  private final ReplicaFiles primaryFiles;
  private final TableCatalogs catalogs;

  /**
   * @param primary the store of the promoted table, the source from now on
   * @param original the store of the original location
   * @param tagPrefix the prefix of the orphan tags' names
   * @param catalogs where the promoted table's head is read (its catalog's pointer: writers commit
   *     through the catalog), and the original's catalog entry, moved to each version fail-back
   *     publishes there ({@link TableCatalogs#NONE} for a table no catalog holds)
   */
  public TableFailback(
      ObjectStore primary,
      ObjectStore original,
      Clock clock,
      ExecutorService executor,
      ReplicationOptions options,
      String tagPrefix,
      TableCatalogs catalogs) {
    this.primary = primary;
    this.original = original;
    this.clock = clock;
    this.executor = executor;
    this.options = options;
    this.tagPrefix = tagPrefix;
    this.originalFiles = new ReplicaFiles(original, options.maxMetadataBytes());
    this.primaryFiles = new ReplicaFiles(primary, options.maxMetadataBytes());
    this.catalogs = catalogs;
  }

  /**
   * @throws TableReplicationException with the specific error; the original is left as it was
   */
  public FailbackSummary failback(String primaryLocation, String originalLocation) {
    return failback(primaryLocation, originalLocation, OptionalLong.empty());
  }

  /**
   * As above, refused when the promoted table is no longer at {@code decidedOnEpoch}, the promotion
   * epoch the caller saw when it decided: a replayed request after a later promotion or switch-back
   * fails back nothing.
   */
  public FailbackSummary failback(
      String primaryLocation, String originalLocation, OptionalLong decidedOnEpoch) {
    String table = primaryLocation;
    try {
      if (decidedOnEpoch.isPresent()) {
        Promotion promotion = primaryFiles.state(primaryLocation).promotion();
        if (promotion == null || promotion.epoch() != decidedOnEpoch.getAsLong()) {
          throw refused(
              primaryLocation,
              originalLocation,
              "the request was decided on promotion epoch "
                  + decidedOnEpoch.getAsLong()
                  + ", but the table is "
                  + (promotion == null ? "not promoted" : "at epoch " + promotion.epoch())
                  + " (it moved since: ask its status again)");
        }
      }
      TableLocation promotedTable = TableLocation.of(primaryLocation);
      if (promotedTable.overlaps(TableLocation.of(originalLocation))) {
        throw refused(primaryLocation, originalLocation, "it overlaps the promoted table");
      }
      OriginalHead head = originalHead(table, originalLocation);
      if (promotedTable.sameAs(TableLocation.of(head.metadata().location()))) {
        throw refused(
            primaryLocation,
            originalLocation,
            "its metadata "
                + head.file()
                + " is the promoted table's own (its location is "
                + head.metadata().location()
                + ")");
      }
      if (!"true".equals(head.metadata().properties().get(ReplicaProperties.READ_ONLY))) {
        return firstCommit(table, primaryLocation, originalLocation);
      }
      // already failed back: replication carries the promoted table's new commits over
      ReplicationSummary summary =
          TableReplicator.builder(
                  primary, original, executor, returningRoots(primaryLocation, head))
              .clock(clock)
              .progress(CopyProgress.Listener.NONE)
              .catalogs(catalogs)
              .build()
              .replicate(primaryLocation, originalLocation, Optional.empty());
      ReplicaState state = originalFiles.state(originalLocation);
      return new FailbackSummary(
          originalLocation,
          summary.replicaMetadataFiles(),
          summary.snapshotsAdded(),
          summary.filesCopied(),
          summary.bytesCopied(),
          keptSnapshots(originalLocation, state.keptRefs()),
          state.keptRefs());
    } catch (ReplicationException | UncheckedIOException e) {
      throw new TableReplicationException(table, e);
    } catch (IOException e) {
      throw new TableReplicationException(table, new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /**
   * The options with the promoted table's data roots sent back to the original's folders its
   * replication took them from ({@link SourcePrefixes#returning}), after the user's prefixes.
   */
  private ReplicationOptions returningRoots(String primaryLocation, OriginalHead head)
      throws IOException {
    List<PathMapping.Prefix> prefixes = new ArrayList<>(options.extraPrefixes());
    prefixes.addAll(
        SourcePrefixes.returning(
            primaryFiles.state(primaryLocation).mappedPrefixes(), head.metadata()));
    return options.forTable(prefixes, options.allowedSourcePrefixes());
  }

  private FailbackSummary firstCommit(String table, String primaryLocation, String originalLocation)
      throws IOException {
    try (ObjectStore.Lock lock = original.lock(originalLocation)) {
      LeasedReplica leased = new LeasedReplica(original, originalFiles, originalLocation, lock);
      // read again under the lease: another run may have failed back since
      OriginalHead head = originalHead(table, originalLocation);
      String promotedFile =
          catalogs
              .sourceHead()
              .orElseGet(() -> new FileSystemHeadResolver(primary, clock, options.settleTime()))
              .head(primaryLocation)
              .file();
      TableMetadata promoted =
          ReplicaFiles.readMetadata(primary, promotedFile, options.maxMetadataBytes());
      Set<Long> expiredByPromoted = primaryFiles.state(primaryLocation).expiredSnapshotIds();
      refuseAnotherTable(primaryLocation, originalLocation, promoted, promotedFile, head);
      Orphans orphans =
          Orphans.find(promoted, head.metadata(), expiredByPromoted, tagPrefix, clock.millis());
      TableMetadata joined =
          FailbackLines.join(promoted, promotedFile, head.metadata(), head.file(), orphans);

      // the original's manifests stay in place: what is written into it is spelled as they are
      String location = OriginalSpelling.location(head.metadata(), originalLocation);
      String filesAt = OriginalSpelling.filesPrefix(original, head.metadata(), location);

      // the tags first: a rerun after a crash keeps the names it may already have printed
      ReplicaState state = leased.state();
      Map<String, Long> tags = state.keptRefs().isEmpty() ? orphans.refs() : state.keptRefs();
      SourcePrefixes prefixes =
          SourcePrefixes.of(
                  filesAt,
                  returningRoots(primaryLocation, head).extraPrefixes(),
                  options.allowedSourcePrefixes(),
                  List.of())
              .learn(promoted, promotedFile)
              .learnFolderOf(promotedFile);
      leased.writeState(
          state
              .withKeptRefs(tags)
              .withSourcePrefixes(prefixes.learned())
              .withMappedPrefixes(prefixes.explicit())
              .withCutTags(carriedCutTags(state, primaryLocation, promoted)),
          "record the orphan tags");

      ReplicaDomain.Placement placement = prefixes.placement();
      PathMapping mapping = placement.mapping();
      MergeResult merge =
          MetadataMerge.merge(
              MergeRequest.builder()
                  .source(promoted, promotedFile)
                  .replica(joined, head.file())
                  .targetLocation(location)
                  .mapping(mapping)
                  .commitTimeMs(clock.millis())
                  .keptRefs(tags)
                  .previousVersionsMax(ReplicaCommits.previousVersionsMax(promoted))
                  .build());
      CopyPlanner planner = new CopyPlanner(primary, original);
      PlanExecutor.Outcome outcome =
          new PlanExecutor(primary, original, executor)
              .execute(
                  table,
                  sink -> planner.plan(table, merge, Optional.of(joined), mapping, sink),
                  placement,
                  leased::removeFailedCopies);

      long version = head.newestVersion() + 1;
      TableMetadata committed =
          leased.recordCommit(
              Optional.of(new ReplicaHead(head.version(), head.file(), head.metadata())),
              version,
              merge.metadata());
      String published = leased.publish(table, version, committed);
      // a crash before this leaves the entry behind; the next run's replication moves it
      catalogs.registrar().ifPresent(entry -> entry.register(originalLocation, published));
      LOG.info(
          "{}: failed back into {} as version {} ({} new snapshots, {} files copied, orphans {} kept as {})",
          table,
          originalLocation,
          version,
          merge.addedSnapshots().size(),
          outcome.filesCopied(),
          orphans.snapshotIds(),
          tags);
      return new FailbackSummary(
          originalLocation,
          List.of(published),
          merge.addedSnapshots().size(),
          outcome.filesCopied(),
          outcome.bytesCopied(),
          orphans.snapshotIds(),
          tags);
    }
  }

  /**
   * The original's cut tags once it carries the promoted table's history: its own, and the group's
   * cut tags the promoted table carries, which the fail-back brings along as refs. They stay the
   * group's tags there, so a group failed back ({@code failback --consistent} with the group's ref)
   * tags its cuts beside them rather than refusing them as refs of the original's own.
   */
  private Map<String, Long> carriedCutTags(
      ReplicaState state, String primaryLocation, TableMetadata promoted) throws IOException {
    Map<String, Long> promotedTags = primaryFiles.state(primaryLocation).cutTags();
    Map<String, Long> cutTags = new TreeMap<>(state.cutTags());
    CutTags.carried(promoted, promotedTags).forEach(tag -> cutTags.put(tag, promotedTags.get(tag)));
    return cutTags;
  }

  /**
   * The refusal of a fail-back, before anything is written.
   *
   * @param reason why, naming what was found
   */
  public static BadInputException refused(
      String primaryLocation, String originalLocation, String reason) {
    return new BadInputException(
        "Cannot fail back table "
            + primaryLocation
            + " into "
            + originalLocation
            + ": "
            + reason
            + "; nothing was written");
  }

  /**
   * The original must be the table the promoted one was replicated from: the same {@code
   * table-uuid}. Checked before the state is written, so a wrong original keeps nothing of the
   * attempt.
   */
  private static void refuseAnotherTable(
      String primaryLocation,
      String originalLocation,
      TableMetadata promoted,
      String promotedFile,
      OriginalHead head) {
    if (promoted.tableUuid().isPresent()
        && head.metadata().tableUuid().isPresent()
        && !promoted.tableUuid().equals(head.metadata().tableUuid())) {
      throw refused(
          primaryLocation,
          originalLocation,
          "its table-uuid "
              + head.metadata().tableUuid().get()
              + " ("
              + head.file()
              + ") differs from the promoted table's "
              + promoted.tableUuid().get()
              + " ("
              + promotedFile
              + "); it is another table");
    }
  }

  /** The snapshots the kept tags reach that the original holds, in its order. */
  private List<Long> keptSnapshots(String originalLocation, Map<String, Long> tags)
      throws IOException {
    OriginalHead head = originalHead(originalLocation, originalLocation);
    SnapshotGraph graph = head.metadata().graph();
    Set<Long> onMain = new HashSet<>();
    head.metadata()
        .currentSnapshotId()
        .ifPresent(current -> graph.ancestors(current).forEach(s -> onMain.add(s.snapshotId())));
    Set<Long> kept = new HashSet<>();
    for (Long id : tags.values()) {
      for (Snapshot snapshot : graph.ancestors(id)) {
        if (onMain.contains(snapshot.snapshotId()) || !kept.add(snapshot.snapshotId())) {
          break;
        }
      }
    }
    return head.metadata().snapshots().stream()
        .map(Snapshot::snapshotId)
        .filter(kept::contains)
        .toList();
  }

  /**
   * The original's current version as readers resolve it, and the newest version number any of its
   * metadata files has: the failback version comes after all of them.
   */
  private OriginalHead originalHead(String table, String location) throws IOException {
    String folder = TableLayout.metadataFolder(location);
    List<String> names = original.list(folder);
    Optional<String> hint =
        names.contains(TableLayout.VERSION_HINT)
            ? Optional.of(
                ReplicaFiles.readText(original, TableLayout.join(folder, TableLayout.VERSION_HINT)))
            : Optional.empty();
    String name =
        SourceHead.resolve(folder, names, hint)
            .orElseThrow(
                () ->
                    new BadInputException(
                        "Cannot fail back table "
                            + table
                            + " into "
                            + location
                            + ": it holds no table metadata in "
                            + folder));
    long newest =
        names.stream()
            .map(MetadataFileNames::version)
            .filter(v -> v.isPresent())
            .mapToLong(v -> v.getAsLong())
            .max()
            .orElse(0);
    String file = TableLayout.join(folder, name);
    return new OriginalHead(
        MetadataFileNames.version(name).orElse(newest),
        newest,
        file,
        ReplicaFiles.readMetadata(original, file, options.maxMetadataBytes()));
  }

  private record OriginalHead(
      long version, long newestVersion, String file, TableMetadata metadata) {}
}
