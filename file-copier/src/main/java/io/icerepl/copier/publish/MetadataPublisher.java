package io.icerepl.copier.publish;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.DivergedReplicaException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Publishes a replica version: the metadata file {@code metadata/v<N>.metadata.json}, created
 * complete in one step and only if absent, then {@code metadata/version-hint.text}. Readers that
 * look past the hint already see the new version once its file exists; the hint follows.
 */
public final class MetadataPublisher {
  private final ObjectStore target;

  public MetadataPublisher(ObjectStore target) {
    this.target = target;
  }

  /**
   * @return the published metadata file
   * @throws DivergedReplicaException when another writer created that version first
   */
  public String publish(String table, String location, long version, byte[] metadataJson)
      throws IOException {
    return publishWith(table, location, version, file -> target.createIfAbsent(file, metadataJson));
  }

  /**
   * As above, streaming the metadata JSON from {@code metadataJson} where the store can: a metadata
   * file is never held whole in memory to publish it.
   */
  public String publish(
      String table, String location, long version, ObjectStore.Writer metadataJson)
      throws IOException {
    return publishWith(table, location, version, file -> target.createIfAbsent(file, metadataJson));
  }

  private String publishWith(String table, String location, long version, Creation creation)
      throws IOException {
    String file = ReplicaLayout.metadataFile(location, version);
    if (!creation.createIfAbsent(file)) {
      throw new DivergedReplicaException(
          "Cannot commit replica version "
              + version
              + " of table "
              + table
              + ": "
              + file
              + " already exists; another writer committed to the replica");
    }
    writeVersionHint(location, version);
    return file;
  }

  /** Creates the metadata file if absent; false when it existed. */
  @FunctionalInterface
  private interface Creation {
    boolean createIfAbsent(String file) throws IOException;
  }

  public void writeVersionHint(String location, long version) throws IOException {
    byte[] hint = Long.toString(version).getBytes(StandardCharsets.UTF_8);
    target.write(ReplicaLayout.versionHintFile(location), out -> out.write(hint));
  }
}
