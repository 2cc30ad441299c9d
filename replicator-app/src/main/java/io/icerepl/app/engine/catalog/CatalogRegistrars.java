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
   * @param clients where a Glue registrar takes its SDK client: one per catalog, closed with the
   *     clients, not one per run
   * @throws IllegalArgumentException when the catalog's kind (its {@code type}) has no atomic way
   *     to move an entry forward the replicator knows
   */
  public static ReplicaRegistrar forCatalog(
      CatalogSpec spec,
      Catalog catalog,
      TableIdentifier identifier,
      ObjectStore target,
      CatalogClients clients) {
    ReplicaVersions versions = new ReplicaVersions(target);
    switch (String.valueOf(spec.type())) {
      case "jdbc":
        return new JdbcRegistrar(spec, catalog, identifier, versions);
      case "rest":
        return new RestRegistrar(spec, catalog, identifier, versions);
      case "glue":
        if (identifier.namespace().length() != 1) {
          throw new IllegalArgumentException(
              "Cannot register replicas as "
                  + identifier
                  + " in "
                  + spec.describe()
                  + ": a Glue table's namespace is one database name");
        }
        return new GlueRegistrar(spec, catalog, identifier, versions, clients.glue(spec));
      default:
        throw new IllegalArgumentException(
            "Cannot register replicas in "
                + spec.describe()
                + ": only type=jdbc, type=rest and type=glue catalogs have an atomic move forward"
                + " the replicator knows");
    }
  }
}
