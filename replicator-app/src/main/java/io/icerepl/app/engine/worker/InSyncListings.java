package io.icerepl.app.engine.worker;

import io.icerepl.app.engine.TableHeads;
import io.icerepl.app.engine.head.MetadataListing;
import io.icerepl.copier.publish.ReplicaLayout;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For each key whose last run (or restore) found its replica holding the source head with nothing
 * settling: the source metadata folder's listing that head was resolved from, and the replica's
 * metadata folder's listing right after. A reconciliation pass that lists both alike needs no run.
 */
final class InSyncListings {
  private final TableContext context;
  private final Map<TableKey, Listed> listed = new ConcurrentHashMap<>();

  private record Listed(MetadataListing source, MetadataListing replica) {}

  InSyncListings(TableContext context) {
    this.context = context;
  }

  /** Forgets the key's listings: its run failed, so its replica may be behind. */
  void forget(TableKey key) {
    listed.remove(key);
  }

  /**
   * Whether the key's last run (or restore) found its replica holding the head its source resolved
   * from a metadata folder listed as {@code listing}, with nothing settling, and the replica's
   * metadata folder still lists as it did then: a source folder listed alike has the same head, and
   * a replica nobody wrote to since needs no run. A commit made into the replica behind the
   * replicator's back changes its listing, so the run that reports it as diverged still comes. One
   * listing of the replica's folder; any error answers "changed", and the run says what it is.
   */
  boolean unchangedSince(TableKey key, MetadataListing listing) {
    Listed last = listed.get(key);
    if (last == null || !listing.equals(last.source())) {
      return false;
    }
    return replicaListing(key).filter(last.replica()::equals).isPresent();
  }

  /**
   * Remembers the listings behind {@code heads} when they show the replica in sync, else forgets.
   */
  void remember(TableKey key, TableHeads heads) {
    Optional<MetadataListing> listing = heads.source().listing();
    Optional<MetadataListing> replica =
        heads.inSync() && listing.isPresent() ? replicaListing(key) : Optional.empty();
    if (replica.isPresent()) {
      listed.put(key, new Listed(listing.get(), replica.get()));
    } else {
      listed.remove(key);
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
}
