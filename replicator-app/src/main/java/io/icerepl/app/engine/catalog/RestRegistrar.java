package io.icerepl.app.engine.catalog;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.merge.ReplicaProperties;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * An Iceberg REST catalog has no conditional "point at this file": the entry is moved with the
 * protocol's own commit, the changes from the replica version the entry holds to the current one,
 * sent with the requirements Iceberg's client derives (the table's UUID, the refs, schema, spec and
 * sort order it moves), one commit per replica version the entry lacks, so a reader of the catalog
 * only ever sees versions the replicator published. The catalog then writes its own metadata file,
 * equal in content. Since entries point at the catalog's files, an entry is matched with a replica
 * version by the commit token it carries and compared by content.
 */
final class RestRegistrar extends EntryRegistrar {

  RestRegistrar(
      CatalogSpec spec, Catalog catalog, TableIdentifier identifier, ReplicaVersions versions) {
    super(spec, catalog, identifier, versions);
  }

  /**
   * The protocol's commit has no change that sets {@code last-sequence-number}, so a commit would
   * lose the gap promotion opens between the promoted table's sequence numbers and those the old
   * source may have used, and fail-back could not keep both lines of history. The entry is dropped
   * instead, without purging a file, and the promoted version registered as it is: readers of the
   * catalog miss the table for that moment, and a crash in between leaves no entry, which the rerun
   * of the promotion registers.
   */
  @Override
  Optional<Registration> promoteAttempt(String replicaLocation, String promotedFile) {
    TableMetadata entry;
    try {
      entry = ((HasTableOperations) catalog.loadTable(identifier)).operations().current();
    } catch (NoSuchTableException e) {
      return registerNew(promotedFile);
    }
    String entryFile = entry.metadataFileLocation();
    TableMetadata promoted = versions.readPublished(promotedFile);
    String epoch = promoted.properties().get(ReplicaProperties.EPOCH);
    if (ReplicaVersions.same(entryFile, promotedFile)
        || (ReplicaVersions.same(replicaLocation, entry.location())
            && epoch != null
            && epoch.equals(entry.properties().get(ReplicaProperties.EPOCH))
            && !entry.properties().containsKey(ReplicaProperties.READ_ONLY))) {
      // already the promoted version, or a commit writers made on it since
      return Optional.of(Registration.UNCHANGED);
    }
    held(
        replicaLocation,
        new ReplicaVersions.Version(
            ReplicaVersions.number(replicaLocation, promotedFile).orElseThrow(),
            promotedFile,
            promoted),
        entry);
    catalog.dropTable(identifier, false);
    return registerNew(promotedFile).map(registered -> Registration.ADVANCED);
  }

  @Override
  Optional<Registration> attempt(String replicaLocation, String metadataFile) {
    TableOperations operations;
    try {
      operations = ((HasTableOperations) catalog.loadTable(identifier)).operations();
    } catch (NoSuchTableException e) {
      return registerNew(metadataFile);
    }
    TableMetadata entry = operations.current();
    ReplicaVersions.Version current =
        new ReplicaVersions.Version(
            ReplicaVersions.number(replicaLocation, metadataFile).orElseThrow(),
            metadataFile,
            versions.readPublished(metadataFile));
    ReplicaVersions.Version held = held(replicaLocation, current, entry);
    if (held.number() >= current.number()) {
      return Optional.of(Registration.UNCHANGED);
    }
    for (long number = held.number() + 1; number <= current.number(); number++) {
      String file = ReplicaLayout.metadataFile(replicaLocation, number);
      TableMetadata next =
          number == current.number() ? current.metadata() : versions.readPublished(file);
      try {
        operations.commit(operations.current(), toward(operations.current(), next, file));
      } catch (CommitFailedException e) {
        return Optional.empty();
      }
    }
    return Optional.of(Registration.ADVANCED);
  }

  /**
   * The entry's metadata with the changes toward the replica version {@code next} ({@code file}).
   *
   * @throws UnsupportedFeatureException when the catalog's commit would not reproduce it
   */
  private TableMetadata toward(TableMetadata entry, TableMetadata next, String file) {
    TableMetadata moved = RestChanges.toward(entry, next);
    List<String> lost = TableContent.of(next).differences(TableContent.of(moved));
    if (!lost.isEmpty()) {
      throw new UnsupportedFeatureException(
          cannot(file)
              + ": the catalog's commit would not reproduce "
              + file
              + " (its "
              + String.join(", ", lost)
              + " would differ)");
    }
    return moved;
  }

  /**
   * The commit that moves the entry to the first replica version carrying {@code cutTag}, to be
   * sent with the group's others in one multi-table commit; the versions before it, which do not
   * carry the cut, are committed first one at a time, as a lone entry's are. Empty when the entry
   * carries the cut already, when there is no entry yet (the replica's own run registers it) or
   * when no version carries the cut.
   *
   * @param currentFile the replica's current version
   */
  Optional<TableCommit> planCommit(String replicaLocation, String currentFile, String cutTag) {
    Optional<TableMetadata> entry = entryMetadata();
    if (entry.isEmpty() || entry.get().refs().containsKey(cutTag)) {
      return Optional.empty();
    }
    ReplicaVersions.Version current =
        new ReplicaVersions.Version(
            ReplicaVersions.number(replicaLocation, currentFile).orElseThrow(),
            currentFile,
            versions.readPublished(currentFile));
    ReplicaVersions.Version held = held(replicaLocation, current, entry.get());
    for (long number = held.number() + 1; number <= current.number(); number++) {
      String file = ReplicaLayout.metadataFile(replicaLocation, number);
      TableMetadata next =
          number == current.number() ? current.metadata() : versions.readPublished(file);
      if (!next.refs().containsKey(cutTag)) {
        continue;
      }
      TableMetadata base = entry.get();
      if (number > held.number() + 1) {
        String before = ReplicaLayout.metadataFile(replicaLocation, number - 1);
        if (attempt(replicaLocation, before).isEmpty()) {
          throw new CatalogException(
              cannot(before) + ": the entry moved while it was being moved forward", null);
        }
        base = entryMetadata().orElseThrow();
      }
      return Optional.of(TableCommit.create(identifier, base, toward(base, next, file)));
    }
    return Optional.empty();
  }

  /**
   * Sends the commits in one request, the protocol's multi-table commit: the catalog checks every
   * table's requirements before it applies any change.
   *
   * @param registrars the registrars the commits were planned by, of one catalog
   * @return false when a requirement failed (an entry moved since it was read): nothing moved
   */
  static boolean commitAll(List<RestRegistrar> registrars, List<TableCommit> commits) {
    RestRegistrar first = registrars.get(0);
    if (!(first.catalog instanceof RESTCatalog rest)) {
      throw new UnsupportedFeatureException(
          "Cannot move the entries of "
              + first.spec.describe()
              + " together: its client has no multi-table commit");
    }
    try {
      rest.commitTransaction(commits);
      return true;
    } catch (CommitFailedException e) {
      return false;
    } catch (RuntimeException e) {
      throw new CatalogException(
          "Cannot move the entries "
              + commits.stream().map(TableCommit::identifier).toList()
              + " together in "
              + first.spec.describe()
              + ": "
              + IcebergCatalogs.reason(e),
          e);
    }
  }

  /**
   * The replica version the entry holds, matched by its commit token among those {@code current}'s
   * metadata-log names.
   *
   * @throws io.icerepl.merge.error.DivergedReplicaException when the entry is no replica version,
   *     or was changed through the catalog since the replicator registered it
   */
  private ReplicaVersions.Version held(
      String replicaLocation, ReplicaVersions.Version current, TableMetadata entry) {
    String entryFile = entry.metadataFileLocation();
    if (!ReplicaVersions.isReplica(replicaLocation, entry)) {
      throw diverged(
          current.file(), entryFile, "which the replicator did not write for this replica");
    }
    ReplicaVersions.Version held =
        versions
            .withToken(replicaLocation, current, ReplicaVersions.token(entry))
            .orElseThrow(
                () ->
                    diverged(
                        current.file(),
                        entryFile,
                        "whose commit token is that of no replica version the replica's"
                            + " metadata-log names"));
    List<String> changed = TableContent.of(held.metadata()).differences(TableContent.of(entry));
    if (!changed.isEmpty()) {
      throw diverged(
          current.file(),
          entryFile,
          "changed through the catalog after the replicator registered "
              + held.file()
              + " (its "
              + String.join(", ", changed)
              + " differ)");
    }
    return held;
  }
}
