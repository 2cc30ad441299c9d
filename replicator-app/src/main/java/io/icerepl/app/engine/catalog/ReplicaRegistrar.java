package io.icerepl.app.engine.catalog;

import java.util.Optional;

/**
 * Keeps a replica's entry in the target's catalog at the replica's current metadata file. Called
 * after every run, also when nothing new was replicated, so an entry left behind by a crash between
 * a replica commit and its registration is moved forward by the next run.
 */
public interface ReplicaRegistrar {

  /** What a call did to the catalog entry. */
  enum Registration {
    /** The entry did not exist and now names the replica. */
    REGISTERED,
    /** The entry named an older replica version and now names the current one. */
    ADVANCED,
    /** The entry already named the current version. */
    UNCHANGED,
    /**
     * The entry was left where it is: the version carries a replication group's cut its other
     * entries in the catalog may not show yet, and the group's entries move to it together ({@link
     * EntriesTogether}).
     */
    HELD
  }

  /**
   * @param replicaLocation the replica's table location
   * @param metadataFile the replica's current metadata file, fully published
   * @throws io.icerepl.merge.error.DivergedReplicaException when the entry exists but was not
   *     created by the replicator for this replica, or moved since; it is never overwritten
   * @throws CatalogException when the catalog is down or refuses
   */
  Registration register(String replicaLocation, String metadataFile);

  /**
   * Moves the entry to the replica's promoted version (failover): the first version without the
   * read-only marking, from which writers commit through the catalog. An entry already at it, or
   * past it (writers committed through the catalog since), is left as it is.
   *
   * @param replicaLocation the replica's table location
   * @param promotedFile the promoted version, fully published
   * @throws io.icerepl.merge.error.DivergedReplicaException when the entry names neither a replica
   *     version nor a commit on the promoted one; it is never overwritten
   * @throws io.icerepl.merge.error.UnsupportedFeatureException when the catalog's kind cannot name
   *     the promoted version as it is
   * @throws CatalogException when the catalog is down or refuses
   */
  Registration promote(String replicaLocation, String promotedFile);

  /**
   * The metadata file the entry names now, empty when there is no entry. Writers of a promoted
   * replica commit through its entry, so for such a table this, not the folder's version hint, is
   * its current version.
   *
   * @throws CatalogException when the catalog is down or refuses
   */
  Optional<String> entryFile();

  /** How the entry is named in logs and the status API: catalog name and identifier. */
  String describe();
}
