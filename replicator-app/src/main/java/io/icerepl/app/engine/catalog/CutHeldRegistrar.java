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
 * never runs ahead of the others' to a cut they do not show yet. A first registration is held the
 * same way when its version carries any cut: the group's move registers it once the others show
 * that cut.
 *
 * <p>The check and the registration are two steps, and need not be one: an entry's newest cut only
 * grows, so a version found not ahead stays not ahead; and a version the check holds is brought in
 * by the group's move.
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
   * Whether {@code metadataFile} shows a newer cut than the entry does; where there is no entry
   * yet, whether it shows a cut at all.
   */
  private boolean isAhead(String metadataFile) {
    try {
      Optional<TableMetadata> entry = delegate.entryMetadata();
      if (entry.isPresent()
          && ReplicaVersions.same(entry.get().metadataFileLocation(), metadataFile)) {
        return false;
      }
      OptionalLong shown =
          entry.isEmpty() ? OptionalLong.empty() : CutTags.newest(ref, entry.get().refs().keySet());
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
