package io.icerepl.merge.merge;

/**
 * Properties the replicator adds to replica metadata. They travel inside each replica commit, so
 * the replica itself says which source version it holds: no separate record can disagree.
 */
public final class ReplicaProperties {
  private ReplicaProperties() {}

  /**
   * The name of the source metadata file the replica's current version was built from: a name, not
   * a path, so that no replica file points into the source's location.
   */
  public static final String SOURCE_METADATA_FILE = "replicator.source-metadata-file";

  /**
   * A token per replica commit, also recorded in the replicator's state: a version written behind
   * the replicator's back cannot carry the token of a commit not made yet.
   */
  public static final String COMMIT_TOKEN = "replicator.commit-token";

  /**
   * {@code true} on every replica commit: the table is a replica, written only by the replicator,
   * until it is promoted. Engines do not enforce it; people and tools that check it see why their
   * write would be lost.
   */
  public static final String READ_ONLY = "replicator.read-only";

  /** The source's {@code last-updated-ms} at that file, to tell a short log from a rewind. */
  public static final String SOURCE_LAST_UPDATED_MS = "replicator.source-last-updated-ms";

  /**
   * Set by a promotion: the promotion epoch of the table's line of history (1 after the first
   * failover). A table carrying it is a primary again, no longer a replica; replicas of it carry it
   * along, so a later promotion of one of them counts on from it.
   */
  public static final String EPOCH = "replicator.epoch";

  /**
   * Iceberg's {@code write.metadata.delete-after-commit.enabled}: owned by the replicator on every
   * replica, always {@code false}. A catalog's own commit on top of a replica (a REST catalog's, on
   * registration) or a writer's on a promoted table would otherwise delete the replica's older
   * metadata files, and with them its history and the promoted version a rerun of promote and the
   * fence of a fail-back read. {@code false} is also Iceberg's default.
   */
  public static final String METADATA_DELETE_AFTER_COMMIT =
      "write.metadata.delete-after-commit.enabled";

  /**
   * The source's own {@link #METADATA_DELETE_AFTER_COMMIT}, kept for the operator of a promoted
   * table: who wants the source's behaviour back sets it once fail-back is done.
   */
  public static final String SOURCE_METADATA_DELETE_AFTER_COMMIT =
      "replicator.source." + METADATA_DELETE_AFTER_COMMIT;
}
