package io.icerepl.app.engine;

import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;

/** Reads where source and replica stand, without the table's lease. */
record HeadsCheck(ReplicatorParts parts, ExecutorService reads) {

  /** Runs the reads of a check that do not wait for one another. */

  /**
   * What a check without the lease read: the heads, and the replica's state as read with them.
   *
   * @param state its last recorded commit tells a run that takes the lease whether any commit was
   *     recorded since
   */
  record Checked(TableHeads heads, ReplicaState state) {}

  /**
   * The source side (its head, then its metadata) and the replica side (its folder's listing, hint
   * and state) are read at the same time: neither depends on the other, and a check costs the
   * longer of the two, not their sum.
   */
  Checked read(
      String sourceLocation, String targetLocation, Optional<ReplicaFiles.Replica> replicaRead) {
    CompletableFuture<SourceRead> sourceRead =
        CompletableFuture.supplyAsync(
            () -> {
              SourceHeadResolver.Head resolved = parts.headResolver().head(sourceLocation);
              return new SourceRead(
                  resolved,
                  ReplicaFiles.readMetadata(
                      parts.source(), resolved.file(), parts.options().maxMetadataBytes()));
            },
            reads);
    try {
      ReplicaFiles.Replica replica =
          replicaRead.isPresent()
              ? replicaRead.get()
              : parts
                  .replicaFiles()
                  .read(
                      sourceLocation,
                      targetLocation,
                      Optional.ofNullable(parts.lastPublished().get()),
                      reads);
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
}
