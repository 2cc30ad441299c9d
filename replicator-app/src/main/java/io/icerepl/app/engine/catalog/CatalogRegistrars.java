package io.icerepl.app.engine.catalog;

import io.icerepl.copier.store.ObjectStore;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/** The registrar that keeps a replica's entry in a target catalog current. */
public final class CatalogRegistrars {
  private CatalogRegistrars() {}

  /**
   * @param spec the target catalog, as the user named it
   * @param catalog that catalog, opened
   * @param identifier the replica's identifier in it
   * @param target the store the replica is written to, where its metadata files are read
   */
  public static ReplicaRegistrar forCatalog(
      CatalogSpec spec, Catalog catalog, TableIdentifier identifier, ObjectStore target) {
    throw new UnsupportedOperationException("registering replicas in " + spec.describe());
  }
}
