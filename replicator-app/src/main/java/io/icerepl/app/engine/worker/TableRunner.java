package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.ReplicationResult;
import io.icerepl.app.engine.TableHeads;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.head.MetadataListing;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.copy.CopyProgress;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
  private final InSyncListings inSync;

  public TableRunner(TableContext context) {
    this.context = context;
    this.inSync = new InSyncListings(context);
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
      inSync.forget(key);
      // a failed run may still be behind by a known amount (a held lease, a bad file): the lag
      // shows it
      try {
        context
            .board()
            .observed(
                key,
                Observation.of(
                    source.location(), replicator.read(source.location(), key.targetLocation())));
      } catch (RuntimeException unreadable) {
        e.addSuppressed(unreadable);
      }
      throw e;
    }
    context
        .board()
        .succeeded(key, result.summary(), Observation.of(source.location(), result.heads()));
    // the clock after the run, not `from`: a commit made between `from` and the source's read is
    // rightly stamped after `from`, never after this
    context.board().sourceRead(key, result.heads().sourceMetadata(), context.clock().millis());
    inSync.remember(key, result.heads());
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
   * Whether the key's replica and its source's metadata folder still list as they did when its last
   * run (or restore) found the replica holding the source head ({@link InSyncListings}).
   */
  @Override
  public boolean unchangedSince(TableKey key, MetadataListing listing) {
    return inSync.unchangedSince(key, listing);
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
      context.board().restored(key, Observation.of(source.location(), heads));
      inSync.remember(key, heads);
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
}
