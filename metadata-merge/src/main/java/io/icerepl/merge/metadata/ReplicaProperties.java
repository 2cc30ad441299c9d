package io.icerepl.merge.metadata;

/**
 * Properties the replicator adds to replica metadata. They travel inside each replica commit, so
 * the replica itself says which source version it holds: no separate record can disagree.
 */
public final class ReplicaProperties {
  private ReplicaProperties() {}

  /** The source metadata file the replica's current version was built from. */
  public static final String SOURCE_METADATA_FILE = "replicator.source-metadata-file";

  /** The source's {@code last-updated-ms} at that file, to tell a short log from a rewind. */
  public static final String SOURCE_LAST_UPDATED_MS = "replicator.source-last-updated-ms";
}
