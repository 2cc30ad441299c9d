package io.icerepl.app.engine.catalog;

import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.group.CutTags;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.TableMetadata;

/**
 * A group member's entry in a catalog that moves entries together ({@link EntriesTogether}): moved
 * forward by the replica's own runs as long as the version shows no newer cut of the group's ref
 * than the entry does; a version with a newer cut waits for the group's move, so a table's entry
 * never runs ahead of the others' to a cut they do not show yet.
 *
 * <p>The entry itself is created only by the group's move, never by the replica's own run: whether
 * a first registration is in step depends on the other members' entries, which this registrar does
 * not see, and an own run's check and insert are two steps the group's move can fall between (an
 * entry created at a version with no cut right after the move put the others at one). The move
 * registers every member without an entry at the cut it moves the others to.
 *
 * <p>For an entry that exists, the check and the move forward are two steps and need not be one:
 * the entry's newest cut only grows, so a version found not ahead stays not ahead, and a version
 * that is behind the entry by then leaves the entry where it is (the registrar never moves an entry
 * back).
 */
final class CutHeldRegistrar implements ReplicaRegistrar {
  final EntryRegistrar delegate;
  private final String ref;

  CutHeldRegistrar(EntryRegistrar delegate, String ref) {
    this.delegate = delegate;
    this.ref = ref;
  }

  @Override
  public Registration register(String replicaLocation, String metadataFile) {
    if (isAhead(metadataFile)) {
      return Registration.HELD;
    }
    return delegate.register(replicaLocation, metadataFile);
  }

  /**
   * Whether registering {@code metadataFile} is the group's move's to make: when there is no entry
   * yet, or the file shows a newer cut than the entry does.
   */
  private boolean isAhead(String metadataFile) {
    try {
      Optional<TableMetadata> entry = delegate.entryMetadata();
      if (entry.isEmpty()) {
        return true;
      }
      if (ReplicaVersions.same(entry.get().metadataFileLocation(), metadataFile)) {
        return false;
      }
      OptionalLong shown = CutTags.newest(ref, entry.get().refs().keySet());
      OptionalLong wanted =
          CutTags.newest(ref, delegate.versions.readPublished(metadataFile).refs().keySet());
      return wanted.isPresent() && (shown.isEmpty() || wanted.getAsLong() > shown.getAsLong());
    } catch (ReplicationException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CatalogException(
          delegate.cannot(metadataFile) + ": " + IcebergCatalogs.reason(e), e);
    }
  }

  /** A promoted replica leaves its group: its entry moves at once. */
  @Override
  public Registration promote(String replicaLocation, String promotedFile) {
    return delegate.promote(replicaLocation, promotedFile);
  }

  @Override
  public Optional<String> entryFile() {
    return delegate.entryFile();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }
}
