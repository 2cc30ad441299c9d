package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.FileSystemHeadResolver;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.SourceHeadResolver;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.retention.RetentionResult;
import io.icerepl.app.engine.retention.RetentionRunner;
import io.icerepl.app.engine.retention.RetentionSettings;
import io.icerepl.app.service.config.ReplicatorProperties.Retention;
import io.icerepl.app.service.config.ReplicatorProperties.Rule;
import io.icerepl.app.service.status.Observation;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.commit.MetadataPublisher;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.json.Snapshot;
import io.icerepl.merge.json.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import io.icerepl.merge.retention.ExpireOptions;
import io.icerepl.merge.retention.RetentionPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of one lane run, bound to the engine: replicate a key and record where source and
 * replica stand, or expire a replica's snapshots by its rule's retention settings.
 */
public final class TableRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableRunner.class);

  private final StoreFactory stores;
  private final Clock clock;
  private final ExecutorService fileExecutor;
  private final ReplicationOptions options;
  private final Function<String, Retention> retentionOfRule;
  private final StatusBoard board;
  private final Function<String, Rule> ruleByName;

  /**
   * @param fileExecutor copies files; shared by all runs, a separate pool from the lanes' so a
   *     run waiting for its copies never holds the threads they need. Shut down by {@link #close}.
   * @param retentionOfRule a rule's retention settings by its name
   * @param ruleByName a rule by its name, for where its tables may keep files
   */
  public TableRunner(
      StoreFactory stores,
      Clock clock,
      ExecutorService fileExecutor,
      ReplicationOptions options,
      Function<String, Retention> retentionOfRule,
      StatusBoard board,
      Function<String, Rule> ruleByName) {
    this.stores = stores;
    this.clock = clock;
    this.fileExecutor = fileExecutor;
    this.options = options;
    this.retentionOfRule = retentionOfRule;
    this.board = board;
    this.ruleByName = ruleByName;
  }

  /** @return when to run again for a source metadata file still too young to trust, if any */
  public Optional<Duration> replicate(TableKey key) {
    board.seen(key);
    ObjectStore source = stores.sourceStore(key.sourceLocation());
    ObjectStore target = stores.targetStore(key.targetLocation());
    if (unchanged(key, source, target)) {
      return Optional.empty();
    }
    ReplicationSummary summary;
    try {
      summary =
          new TableReplicator(source, target, clock, fileExecutor, optionsOf(key), progress -> board.progress(key, progress))
              .replicate(key.sourceLocation(), key.targetLocation(), Optional.empty());
    } catch (RuntimeException e) {
      // a failed run may still be behind by a known amount (a held lease, a bad file): the lag shows it
      try {
        board.observed(key, observe(key, source, target));
      } catch (RuntimeException unreadable) {
        e.addSuppressed(unreadable);
      }
      throw e;
    }
    board.succeeded(key, summary, observe(key, source, target));
    return summary.settlesIn();
  }

  /**
   * A table may keep files only under its own folder, its rule's allowed prefixes and the prefixes
   * its target maps: its metadata alone must not make the service copy another table's files.
   */
  private ReplicationOptions optionsOf(TableKey key) {
    Rule rule = ruleByName.apply(key.rule());
    List<PathMapping.Prefix> maps =
        rule.targets().stream()
            .filter(t -> t.name().equals(key.target()))
            .flatMap(t -> t.map().stream())
            .map(m -> new PathMapping.Prefix(m.source(), m.target()))
            .toList();
    List<String> allowed = new ArrayList<>();
    allowed.add(key.sourceLocation());
    allowed.addAll(rule.allowedSourcePrefixes());
    return options.forTable(maps, allowed);
  }

  /**
   * Where a replica not seen since the service started stands, read from the replica's own
   * metadata and the source head, so its status and lag are right before its first run.
   */
  public void restore(TableKey key) {
    if (board.known(key)) {
      return;
    }
    try {
      board.restored(
          key, observe(key, stores.sourceStore(key.sourceLocation()), stores.targetStore(key.targetLocation())));
    } catch (RuntimeException e) {
      // the table's run reports the same error with its state
      LOG.info("{}: status of replica {} not restored: {}", key.table(), key.targetLocation(), e.getMessage());
    }
  }

  public RetentionResult expire(TableKey key) {
    Retention retention = retentionOfRule.apply(key.rule());
    RetentionSettings settings =
        new RetentionSettings(retention.replicaOwnsFiles(), RetentionSettings.defaults().batchSize(), options.maxMetadataBytes());
    ExpireOptions expireOptions =
        new ExpireOptions(
            Optional.empty(), retention.retentionPeriodMs(), Optional.ofNullable(retention.retainLast()), Set.of(), false);
    UnaryOperator<RetentionPolicy> adjust =
        retention
            .maxRefAgeMs()
            .<UnaryOperator<RetentionPolicy>>map(
                age -> p -> new RetentionPolicy(p.minSnapshotsToKeep(), p.maxSnapshotAgeMs(), age))
            .orElse(UnaryOperator.identity());
    return new RetentionRunner(stores.targetStore(key.targetLocation()), clock, settings)
        .expire(key.targetLocation(), Optional.empty(), adjust, expireOptions);
  }

  /**
   * Whether the replica already holds the source's current metadata file, read without the
   * table's lease: then the run takes no lease and writes nothing, so an idle table costs a
   * reconciliation pass a few reads. Anything unreadable is left to the locked run to report.
   */
  private boolean unchanged(TableKey key, ObjectStore source, ObjectStore target) {
    Observation observed;
    try {
      observed = observe(key, source, target);
    } catch (RuntimeException e) {
      return false;
    }
    if (!observed.inSync()) {
      return false;
    }
    board.succeeded(key, new ReplicationSummary(0, 0, 0, 0, 0, List.of(), List.of(), List.of()), observed);
    return true;
  }

  /** Stops the file copies; call after the coordinator has let running work finish. */
  @Override
  public void close() {
    fileExecutor.shutdownNow();
  }

  private Observation observe(TableKey key, ObjectStore source, ObjectStore target) {
    try {
      SourceHeadResolver.Head sourceHead =
          new FileSystemHeadResolver(source, clock, options.settleTime()).head(key.sourceLocation());
      String sourceFile = sourceHead.file();
      TableMetadata head = ReplicaFiles.readMetadata(source, sourceFile, options.maxMetadataBytes());
      ReplicaFiles replicaFiles = new ReplicaFiles(target, options.maxMetadataBytes());
      Optional<ReplicaHead> replica = replicaFiles.head(key.table(), key.targetLocation());
      Optional<String> replicated = replica.flatMap(ReplicaHead::lastSourceFile).map(MetadataFileNames::fileName);
      // a newer file still settling is a version the replica may yet need: not in sync until it settles
      boolean inSync =
          replicated.equals(Optional.of(MetadataFileNames.fileName(sourceFile))) && sourceHead.settlesAtMs().isEmpty();

      Set<Long> lacking = new HashSet<>();
      head.snapshots().forEach(s -> lacking.add(s.snapshotId()));
      replica.ifPresent(r -> r.metadata().snapshots().stream().map(Snapshot::snapshotId).forEach(lacking::remove));
      lacking.removeAll(replicaFiles.state(key.targetLocation()).expiredSnapshotIds());

      return new Observation(
          sourceFile,
          head.lastUpdatedMs(),
          replica.map(ReplicaHead::file).orElse(null),
          replicated.map(name -> sourcePath(head, sourceFile, key.sourceLocation(), name)).orElse(null),
          replica.flatMap(ReplicaHead::lastSourceUpdatedMs).orElse(null),
          inSync,
          oldestUnreplicatedMs(
              head, sourceFile, replicated,
              sourceHead.settlesAtMs().isPresent()
                  ? OptionalLong.of(sourceHead.settlesAtMs().getAsLong() - options.settleTime().toMillis())
                  : OptionalLong.empty()),
          lacking.size());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the heads of " + key + ": " + e.getMessage(), e);
    }
  }

  /**
   * The source path of a metadata file the replica names (a name): the head, an entry of the
   * head's log, else a file in the source's metadata folder.
   */
  private static String sourcePath(TableMetadata head, String headFile, String sourceLocation, String name) {
    if (MetadataFileNames.fileName(headFile).equals(name)) {
      return headFile;
    }
    return head.metadataLog().stream()
        .map(TableMetadata.LogEntry::metadataFile)
        .filter(file -> MetadataFileNames.fileName(file).equals(name))
        .findFirst()
        .orElseGet(() -> TableLayout.join(MetadataPublisher.metadataFolder(sourceLocation), name));
  }

  /**
   * The commit time of the first source version after the one replicated last, from the log. When
   * the replica holds the settled head itself, what it lacks is the newer file still settling,
   * written at {@code settlingSinceMs}.
   */
  static long oldestUnreplicatedMs(
      TableMetadata head, String headFile, Optional<String> replicatedFileName, OptionalLong settlingSinceMs) {
    if (replicatedFileName.equals(Optional.of(MetadataFileNames.fileName(headFile)))) {
      return settlingSinceMs.orElse(head.lastUpdatedMs());
    }
    List<TableMetadata.LogEntry> log = head.metadataLog();
    int next = 0;
    if (replicatedFileName.isPresent()) {
      for (int i = 0; i < log.size(); i++) {
        if (MetadataFileNames.fileName(log.get(i).metadataFile()).equals(replicatedFileName.get())) {
          next = i + 1;
        }
      }
    }
    return next < log.size() ? log.get(next).timestampMs() : head.lastUpdatedMs();
  }
}
