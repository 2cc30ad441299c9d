package io.icerepl.app.engine.catalog;

import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.group.CutTags;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.TableMetadata;

/**
 * A group member's entry in a catalog that moves entries together ({@link EntriesTogether}): moved
 * forward by the replica's own runs as long as the version shows no newer cut of the group's ref
 * than the entry does; a version with a newer cut waits for the group's move, so a table's entry
 * never runs ahead of the others' to a cut they do not show yet. A cut is a tag the group's tagging
 * recorded in the replica's state and the version carries ({@link CutTags#carried}): a source tag
 * named like a cut tag, replicated as any ref, neither holds the entry back nor lets it run ahead.
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
    if (isAhead(replicaLocation, metadataFile)) {
      return Registration.HELD;
    }
    return delegate.register(replicaLocation, metadataFile);
  }

  /**
   * Whether registering {@code metadataFile} is the group's move's to make: when there is no entry
   * yet, or the file shows a newer cut than the entry does.
   */
  private boolean isAhead(String replicaLocation, String metadataFile) {
    try {
      Optional<TableMetadata> entry = delegate.entryMetadata();
      if (entry.isEmpty()) {
        return true;
      }
      if (ReplicaVersions.same(entry.get().metadataFileLocation(), metadataFile)) {
        return false;
      }
      // a cut is a tag the group's tagging recorded in the replica's state, never a ref (a source
      // tag replicated as any) that merely bears a cut tag's name
      Map<String, Long> recorded = delegate.versions.recordedCutTags(replicaLocation);
      OptionalLong shown = newestCut(entry.get(), recorded);
      OptionalLong wanted = newestCut(delegate.versions.readPublished(metadataFile), recorded);
      return wanted.isPresent() && (shown.isEmpty() || wanted.getAsLong() > shown.getAsLong());
    } catch (ReplicationException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CatalogException(
          delegate.cannot(metadataFile) + ": " + IcebergCatalogs.reason(e), e);
    }
  }

  /**
   * The newest of the group's cuts {@code version} carries ({@link CutTags#carried}); a cut tag
   * dropped from the state since counts as none, so the entry waits for the group's next move.
   */
  private OptionalLong newestCut(TableMetadata version, Map<String, Long> recorded) {
    return CutTags.newest(ref, CutTags.carried(ReplicaVersions.refs(version), recorded));
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
