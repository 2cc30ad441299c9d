package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.ReplicationResult;
import io.icerepl.app.engine.TableHeads;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.head.MetadataListing;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLayout;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of one lane run, bound to the engine: replicate a key and record where source and
 * replica stand, or restore where a replica stands when the service starts. The on-demand
 * operations of a table are {@link ReplicaMaintenance}', {@link FailoverOperations}' and {@link
 * GroupOperations}'.
 */
public final class TableRunner implements AutoCloseable, Reconciler.Replicas {
  private static final Logger LOG = LoggerFactory.getLogger(TableRunner.class);

  private final TableContext context;

  /**
   * For each key whose last run (or restore) found its replica holding the source head with nothing
   * settling: the source metadata folder's listing that head was resolved from, and the replica's
   * metadata folder's listing right after.
   */
  private final Map<TableKey, InSync> inSyncListings = new ConcurrentHashMap<>();

  private record InSync(MetadataListing source, MetadataListing replica) {}

  public TableRunner(TableContext context) {
    this.context = context;
  }

  /**
   * @return when to run again, if any: for a source metadata file still too young to trust, or for
   *     a version an event announced that the table's catalog does not name yet
   */
  public Optional<Duration> replicate(TableKey key) {
    context.board().seen(key);
    AtomicReference<ReplicaHead> publishedLast = context.publishedLast(key);
    // the source is located (for a catalog table, its catalog asked) while the replica is read
    CompletableFuture<TableContext.Source> located =
        CompletableFuture.supplyAsync(() -> context.source(key), context.fileExecutor());
    Optional<ReplicaFiles.Replica> replicaRead = readReplica(key, publishedLast);
    TableContext.Source source;
    try {
      source = located.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
    TableReplicator replicator =
        TableReplicator.builder(
                context.stores().sourceStore(source.location()),
                context.stores().targetStore(key.targetLocation()),
                context.fileExecutor(),
                context.optionsOf(key, source.location()))
            .clock(context.clock())
            .progress(progress -> context.board().progress(key, progress))
            .catalogs(source.catalogs())
            .batchPreCopy(
                context
                    .batchOperations()
                    .preCopy((table, job) -> context.board().batchJob(key, job)))
            .lastPublished(publishedLast)
            .knownCurrent(context.groups().knownCurrentOf(key))
            .build();
    ReplicationResult result;
    try {
      result = replicator.replicateIfChanged(source.location(), key.targetLocation(), replicaRead);
    } catch (RuntimeException e) {
      inSyncListings.remove(key);
      // a failed run may still be behind by a known amount (a held lease, a bad file): the lag
      // shows it
      try {
        context
            .board()
            .observed(
                key,
                observation(
                    source.location(), replicator.read(source.location(), key.targetLocation())));
      } catch (RuntimeException unreadable) {
        e.addSuppressed(unreadable);
      }
      throw e;
    }
    context
        .board()
        .succeeded(key, result.summary(), observation(source.location(), result.heads()));
    // the clock after the run, not `from`: a commit made between `from` and the source's read is
    // rightly stamped after `from`, never after this
    context.board().sourceRead(key, result.heads().sourceMetadata(), context.clock().millis());
    rememberListing(key, result.heads());
    Optional<Duration> settles = result.summary().settlesIn();
    Optional<Duration> recheck =
        context.catalogLocations().recheckIn(key, result.heads().source().file());
    if (settles.isPresent() && recheck.isPresent()) {
      return settles.get().compareTo(recheck.get()) < 0 ? settles : recheck;
    }
    return settles.or(() -> recheck);
  }

  /**
   * The replica's side of a run's check, read while its source is located; empty when it cannot be
   * read, for the check to read it again and report what is wrong, naming the source.
   */
  private Optional<ReplicaFiles.Replica> readReplica(
      TableKey key, AtomicReference<ReplicaHead> publishedLast) {
    try {
      return Optional.of(
          new ReplicaFiles(
                  context.stores().targetStore(key.targetLocation()),
                  context.options().maxMetadataBytes())
              .read(
                  key.sourceLocation(),
                  key.targetLocation(),
                  Optional.ofNullable(publishedLast.get()),
                  context.fileExecutor()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the key's last run (or restore) found its replica holding the head its source resolved
   * from a metadata folder listed as {@code listing}, with nothing settling, and the replica's
   * metadata folder still lists as it did then: a source folder listed alike has the same head, and
   * a replica nobody wrote to since needs no run. A commit made into the replica behind the
   * replicator's back changes its listing, so the run that reports it as diverged still comes. One
   * listing of the replica's folder; any error answers "changed", and the run says what it is.
   */
  @Override
  public boolean unchangedSince(TableKey key, MetadataListing listing) {
    InSync last = inSyncListings.get(key);
    if (last == null || !listing.equals(last.source())) {
      return false;
    }
    return replicaListing(key).filter(last.replica()::equals).isPresent();
  }

  private void rememberListing(TableKey key, TableHeads heads) {
    Optional<MetadataListing> listing = heads.source().listing();
    Optional<MetadataListing> replica =
        heads.inSync() && listing.isPresent() ? replicaListing(key) : Optional.empty();
    if (replica.isPresent()) {
      inSyncListings.put(key, new InSync(listing.get(), replica.get()));
    } else {
      inSyncListings.remove(key);
    }
  }

  private Optional<MetadataListing> replicaListing(TableKey key) {
    try {
      return Optional.of(
          MetadataListing.of(
              context
                  .stores()
                  .targetStore(key.targetLocation())
                  .listEntries(ReplicaLayout.metadataFolder(key.targetLocation()))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Where a replica not seen since the service started stands, read from the replica's own metadata
   * and the source head, so its status and lag are right before its first run.
   */
  @Override
  public void restore(TableKey key) {
    if (context.board().known(key)) {
      return;
    }
    try {
      TableContext.Source source = context.source(key);
      TableReplicator replicator =
          TableReplicator.builder(
                  context.stores().sourceStore(source.location()),
                  context.stores().targetStore(key.targetLocation()),
                  context.fileExecutor(),
                  context.options())
              .clock(context.clock())
              .progress(CopyProgress.Listener.NONE)
              .catalogs(source.catalogs())
              .build();
      TableHeads heads = replicator.read(source.location(), key.targetLocation());
      context.board().restored(key, observation(source.location(), heads));
      rememberListing(key, heads);
    } catch (RuntimeException e) {
      // the table's run reports the same error with its state
      LOG.info(
          "{}: status of replica {} not restored: {}",
          key.table(),
          key.targetLocation(),
          e.getMessage());
    }
  }

  /** Closes the context it runs in, stopping the file copies of its operations too. */
  @Override
  public void close() {
    context.close();
  }

  private static Observation observation(String sourceLocation, TableHeads heads) {
    String sourceFile = heads.source().file();
    TableMetadata head = heads.sourceMetadata();
    Optional<ReplicaHead> replica = heads.replica();
    Optional<String> replicated = heads.replicatedFileName();
    Set<Long> lacking = new HashSet<>();
    head.snapshots().forEach(s -> lacking.add(s.snapshotId()));
    replica.ifPresent(
        r -> r.metadata().snapshots().stream().map(Snapshot::snapshotId).forEach(lacking::remove));
    lacking.removeAll(heads.expiredSnapshotIds());
    return new Observation(
        sourceFile,
        head.lastUpdatedMs(),
        replica.map(ReplicaHead::file).orElse(null),
        replicated.map(name -> sourcePath(head, sourceFile, sourceLocation, name)).orElse(null),
        replica.flatMap(ReplicaHead::lastSourceUpdatedMs).orElse(null),
        heads.inSync(),
        oldestUnreplicatedMs(head, sourceFile, replicated, heads.source().settlingSinceMs()),
        lacking.size());
  }

  /**
   * The source path of a metadata file the replica names (a name): the head, an entry of the head's
   * log, else a file in the source's metadata folder.
   */
  private static String sourcePath(
      TableMetadata head, String headFile, String sourceLocation, String name) {
    if (MetadataFileNames.fileName(headFile).equals(name)) {
      return headFile;
    }
    return head.metadataLog().stream()
        .map(TableMetadata.LogEntry::metadataFile)
        .filter(file -> MetadataFileNames.fileName(file).equals(name))
        .findFirst()
        .orElseGet(() -> TableLayout.join(TableLayout.metadataFolder(sourceLocation), name));
  }

  /**
   * The commit time of the first source version after the one replicated last, from the log. When
   * the replica holds the settled head itself, what it lacks is the newer file still settling,
   * written at {@code settlingSinceMs}.
   */
  static long oldestUnreplicatedMs(
      TableMetadata head,
      String headFile,
      Optional<String> replicatedFileName,
      OptionalLong settlingSinceMs) {
    if (replicatedFileName.equals(Optional.of(MetadataFileNames.fileName(headFile)))) {
      return settlingSinceMs.orElse(head.lastUpdatedMs());
    }
    List<TableMetadata.LogEntry> log = head.metadataLog();
    int next = 0;
    if (replicatedFileName.isPresent()) {
      for (int i = 0; i < log.size(); i++) {
        if (MetadataFileNames.fileName(log.get(i).metadataFile())
            .equals(replicatedFileName.get())) {
          next = i + 1;
        }
      }
    }
    return next < log.size() ? log.get(next).timestampMs() : head.lastUpdatedMs();
  }
}
