package io.icerepl.copier.publish;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.DivergedReplicaException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Publishes a replica version: the metadata file {@code metadata/v<N>.metadata.json}, created
 * complete in one step and only if absent, then {@code metadata/version-hint.text}. Readers that
 * look past the hint already see the new version once its file exists; the hint follows.
 */
public final class MetadataPublisher {
  /** Each attempt loses only to a writer that moved the hint meanwhile, never back. */
  private static final int MAX_HINT_ATTEMPTS = 8;

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

  /**
   * Creates version {@code version}'s metadata file only, streamed, leaving the hint to the caller
   * ({@link #writeVersionHint}): a writer that must tell the two writes apart (the pause campaign's
   * hook stops a process between them) publishes with this and then the hint.
   *
   * @return the created metadata file
   * @throws DivergedReplicaException when another writer created that version first
   */
  public String create(String table, String location, long version, ObjectStore.Writer metadataJson)
      throws IOException {
    return createWith(table, location, version, file -> target.createIfAbsent(file, metadataJson));
  }

  private String publishWith(String table, String location, long version, Creation creation)
      throws IOException {
    String file = createWith(table, location, version, creation);
    writeVersionHint(location, version);
    return file;
  }

  private String createWith(String table, String location, long version, Creation creation)
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
    return file;
  }

  /** Creates the metadata file if absent; false when it existed. */
  @FunctionalInterface
  private interface Creation {
    boolean createIfAbsent(String file) throws IOException;
  }

  /**
   * Points the version hint at {@code version}, unless it already names that version or a later
   * one. Written only on the hint as it was just read ({@link ObjectStore#replaceIf}), and read
   * again when another writer moved it meanwhile: the hint never moves back, whoever writes it and
   * however long a writer was paused before its write.
   *
   * @return whether this call moved the hint
   */
  public boolean writeVersionHint(String location, long version) throws IOException {
    String file = ReplicaLayout.versionHintFile(location);
    byte[] hint = Long.toString(version).getBytes(StandardCharsets.UTF_8);
    for (int attempt = 0; attempt < MAX_HINT_ATTEMPTS; attempt++) {
      Optional<ObjectStore.VersionedObject> now = target.readVersioned(file);
      if (now.isPresent() && hintVersion(now.get().content()) >= version) {
        return false;
      }
      if (target.replaceIf(file, now.map(ObjectStore.VersionedObject::version), hint).isPresent()) {
        return true;
      }
    }
    throw new ConflictException(
        "Cannot write the version hint "
            + file
            + ": other writers moved it "
            + MAX_HINT_ATTEMPTS
            + " times while this one tried");
  }

  /** The version a hint names; -1 for one that names none, which any version replaces. */
  private static long hintVersion(byte[] content) {
    try {
      return Long.parseLong(new String(content, StandardCharsets.UTF_8).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
