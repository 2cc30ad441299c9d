package io.icerepl.app.engine.catalog;

import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.merge.ReplicaProperties;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * What every target catalog kind shares: read the entry, decide, move it with the catalog's own
 * optimistic check; when the entry moved in between, read and decide once more.
 */
abstract class EntryRegistrar implements ReplicaRegistrar {
  /**
   * A read-decide-move that lost a race is repeated once; a second loss is left to the next run.
   */
  private static final int ATTEMPTS = 2;

  final CatalogSpec spec;
  final Catalog catalog;
  final TableIdentifier identifier;
  final ReplicaVersions versions;

  EntryRegistrar(
      CatalogSpec spec, Catalog catalog, TableIdentifier identifier, ReplicaVersions versions) {
    this.spec = spec;
    this.catalog = catalog;
    this.identifier = identifier;
    this.versions = versions;
  }

  @Override
  public final Registration register(String replicaLocation, String metadataFile) {
    return attempts(metadataFile, () -> attempt(replicaLocation, metadataFile));
  }

  @Override
  public final Registration promote(String replicaLocation, String promotedFile) {
    return attempts(promotedFile, () -> promoteAttempt(replicaLocation, promotedFile));
  }

  private Registration attempts(String metadataFile, Supplier<Optional<Registration>> attempt) {
    try {
      for (int i = 0; i < ATTEMPTS; i++) {
        Optional<Registration> done = attempt.get();
        if (done.isPresent()) {
          return done.get();
        }
      }
    } catch (ReplicationException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CatalogException(cannot(metadataFile) + ": " + e.getMessage(), e);
    }
    throw new CatalogException(
        cannot(metadataFile) + ": the entry moved twice while it was being moved forward", null);
  }

  /**
   * Reads the entry, decides and moves it.
   *
   * @return empty when the entry changed between the read and the move
   */
  abstract Optional<Registration> attempt(String replicaLocation, String metadataFile);

  /**
   * Reads the entry, decides and moves it to the promoted version.
   *
   * @return empty when the entry changed between the read and the move
   */
  abstract Optional<Registration> promoteAttempt(String replicaLocation, String promotedFile);

  /**
   * Registers the replica where there is no entry yet, creating the namespace if missing.
   *
   * @return empty when another writer registered the identifier first
   */
  Optional<Registration> registerNew(String metadataFile) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !identifier.namespace().isEmpty()
        && !namespaces.namespaceExists(identifier.namespace())) {
      try {
        namespaces.createNamespace(identifier.namespace());
      } catch (AlreadyExistsException e) {
        // created meanwhile by someone else: just as good
      }
    }
    try {
      catalog.registerTable(identifier, metadataFile);
      return Optional.of(Registration.REGISTERED);
    } catch (AlreadyExistsException e) {
      return Optional.empty();
    }
  }

  /**
   * For catalogs whose entry names a metadata file: whether the entry at {@code entryFile} is
   * behind {@code metadataFile}. Ours is one of the replica's own version files carrying the
   * replicator's properties; a newer one than {@code metadataFile} (another run got further) is
   * left, never moved backward. An entry naming a file of the replica's own metadata-log is behind
   * too: after fail-back, the original's entry still names the old source's last file, which the
   * fail-back version logs as its predecessor.
   *
   * @throws DivergedReplicaException when the entry names any other file
   */
  boolean isBehind(String replicaLocation, String metadataFile, String entryFile) {
    if (ReplicaVersions.same(entryFile, metadataFile)) {
      return false;
    }
    OptionalLong entryVersion = ReplicaVersions.number(replicaLocation, entryFile);
    if (entryVersion.isEmpty()) {
      if (logs(metadataFile, entryFile)) {
        return true;
      }
      throw diverged(metadataFile, entryFile, "not a metadata file the replicator wrote");
    }
    Optional<TableMetadata> entry = versions.read(entryFile);
    if (entry.isEmpty() || !ReplicaVersions.isReplica(replicaLocation, entry.get())) {
      if (logs(metadataFile, entryFile)) {
        return true;
      }
      throw diverged(
          metadataFile, entryFile, "which the replicator did not write for this replica");
    }
    OptionalLong current = ReplicaVersions.number(replicaLocation, metadataFile);
    return entryVersion.getAsLong() < current.orElseThrow();
  }

  /**
   * Whether {@code metadataFile}'s metadata-log names {@code entryFile}. Read only for an entry
   * that is no replica version: the replica's current metadata may be large.
   */
  private boolean logs(String metadataFile, String entryFile) {
    return versions.readPublished(metadataFile).previousFiles().stream()
        .anyMatch(logged -> ReplicaVersions.same(logged.file(), entryFile));
  }

  /**
   * For catalogs whose entry names a metadata file: whether the entry at {@code entryFile} is still
   * to be moved to {@code promotedFile}. It is when it names an older replica version; it is not
   * when it names the promoted version or a commit made on it through the catalog since, which
   * carries the promotion's epoch without the read-only marking (its metadata-log may have dropped
   * the promoted file by then).
   *
   * @throws DivergedReplicaException when the entry names any other file
   */
  boolean isBeforePromotion(String replicaLocation, String promotedFile, String entryFile) {
    if (ReplicaVersions.same(entryFile, promotedFile)) {
      return false;
    }
    String epoch = versions.readPublished(promotedFile).properties().get(ReplicaProperties.EPOCH);
    Optional<TableMetadata> entry = versions.read(entryFile);
    if (entry.isPresent()
        && ReplicaVersions.same(replicaLocation, entry.get().location())
        && epoch != null
        && epoch.equals(entry.get().properties().get(ReplicaProperties.EPOCH))
        && !entry.get().properties().containsKey(ReplicaProperties.READ_ONLY)) {
      return false;
    }
    if (!isBehind(replicaLocation, promotedFile, entryFile)) {
      throw diverged(promotedFile, entryFile, "a replica version newer than the promoted one");
    }
    return true;
  }

  /** The metadata the entry names now, as Iceberg's client loads it; empty when there is none. */
  Optional<TableMetadata> entryMetadata() {
    try {
      return Optional.of(
          ((HasTableOperations) catalog.loadTable(identifier)).operations().current());
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  /** {@inheritDoc} Read as Iceberg's client loads the table. */
  @Override
  public Optional<String> entryFile() {
    try {
      return Optional.of(
          ((HasTableOperations) catalog.loadTable(identifier))
              .operations()
              .current()
              .metadataFileLocation());
    } catch (NoSuchTableException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      throw new CatalogException(
          "Cannot read the entry "
              + identifier
              + " in "
              + spec.describe()
              + ": "
              + IcebergCatalogs.reason(e),
          e);
    }
  }

  @Override
  public String describe() {
    return spec.name() + ":" + identifier;
  }

  String cannot(String metadataFile) {
    return "Cannot register replica "
        + metadataFile
        + " as "
        + identifier
        + " in "
        + spec.describe();
  }

  /** An entry the replicator did not create, or changed behind its back: never overwritten. */
  DivergedReplicaException diverged(String metadataFile, String entryFile, String reason) {
    return new DivergedReplicaException(
        cannot(metadataFile)
            + ": the entry points at "
            + entryFile
            + ", "
            + reason
            + "; it is left as it is");
  }
}
