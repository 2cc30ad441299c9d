package io.icerepl.app.engine.catalog;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.LoopbackRestCatalog;

/**
 * A real target catalog for one test, in a temporary folder: a JDBC catalog on SQLite, Iceberg's
 * REST catalog server on loopback (itself on SQLite), or Iceberg's Glue catalog against a loopback
 * Glue ({@link LoopbackGlue}). {@link #catalog()} is opened the way the replicator opens catalogs.
 */
final class TargetCatalog implements AutoCloseable {
  enum Kind {
    JDBC,
    REST,
    GLUE;

    /** Whether the entry names the replica's own metadata file, as JDBC and Glue entries do. */
    boolean namesReplicaFile() {
      return this != REST;
    }
  }

  private final Kind kind;
  private final CatalogSpec spec;
  private final LoopbackRestCatalog server;
  private final LoopbackGlue glue;
  private final Catalog catalog;

  private TargetCatalog(
      Kind kind, CatalogSpec spec, LoopbackRestCatalog server, LoopbackGlue glue) {
    this.kind = kind;
    this.spec = spec;
    this.server = server;
    this.glue = glue;
    this.catalog = IcebergCatalogs.open(spec);
  }

  static TargetCatalog start(Kind kind, Path dir) throws Exception {
    Files.createDirectories(dir);
    String warehouse = dir.resolve("warehouse").toUri().toString();
    String database = "jdbc:sqlite:" + dir.resolve("catalog.db");
    if (kind == Kind.JDBC) {
      return new TargetCatalog(
          kind,
          new CatalogSpec(
              "target", Map.of("type", "jdbc", "uri", database, "warehouse", warehouse)),
          null,
          null);
    }
    if (kind == Kind.GLUE) {
      LoopbackGlue glue = new LoopbackGlue();
      return new TargetCatalog(
          kind,
          new CatalogSpec(
              "target",
              Map.of(
                  "type", "glue",
                  "warehouse", warehouse,
                  "glue.endpoint", glue.endpoint(),
                  "client.region", "us-east-1",
                  // the loopback checks no signature
                  "client.credentials-provider",
                      "software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider")),
          null,
          glue);
    }
    LoopbackRestCatalog server = new LoopbackRestCatalog(warehouse, database);
    return new TargetCatalog(
        kind, new CatalogSpec("target", Map.of("type", "rest", "uri", server.uri())), server, null);
  }

  /**
   * The catalog, in which a user commits {@code userCommit} between the replicator's read of the
   * entry and its move: right after the replicator's first load of it, or for Glue, whose entry the
   * replicator reads and moves with Glue's own calls, right before its {@code UpdateTable}.
   */
  Catalog racing(Runnable userCommit) {
    if (glue != null) {
      glue.beforeNextUpdate(userCommit);
      return catalog;
    }
    return new UserCommitsAfterRead(catalog, userCommit);
  }

  /** The loopback Glue behind a {@link Kind#GLUE} catalog. */
  LoopbackGlue glue() {
    return glue;
  }

  /** The value of {@code --target-catalog} that names this catalog. */
  String commandLine() {
    StringBuilder text = new StringBuilder("name=" + spec.name());
    spec.properties()
        .forEach((key, value) -> text.append(',').append(key).append('=').append(value));
    return text.toString();
  }

  Kind kind() {
    return kind;
  }

  CatalogSpec spec() {
    return spec;
  }

  Catalog catalog() {
    return catalog;
  }

  /** The entry's metadata, as a reader of the catalog loads it. */
  TableMetadata entry(TableIdentifier identifier) {
    return operations(identifier).current();
  }

  /** The metadata file the entry names, as the catalog stores it. */
  String entryFile(TableIdentifier identifier) {
    TableOperations operations = operations(identifier);
    return operations instanceof BaseMetastoreTableOperations metastore
        ? metastore.currentMetadataLocation()
        : operations.current().metadataFileLocation();
  }

  private TableOperations operations(TableIdentifier identifier) {
    return ((HasTableOperations) catalog.loadTable(identifier)).operations();
  }

  /** Stops the REST server while the client stays open: the catalog is down. */
  void stopServer() throws Exception {
    server.close();
  }

  @Override
  public void close() throws Exception {
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
    if (server != null) {
      server.close();
    }
    if (glue != null) {
      glue.close();
    }
  }

  @Override
  public String toString() {
    return kind.name();
  }
}
