package io.icerepl.app.engine.catalog;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.aws.AwsClientFactories;
import org.apache.iceberg.catalog.Catalog;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * One open client per catalog, shared by every table of the rules that name it: a REST client keeps
 * its session and a JDBC catalog its connection pool across runs. Closed with the service.
 */
public final class CatalogClients implements AutoCloseable {
  private final Map<CatalogSpec, Catalog> open = new ConcurrentHashMap<>();
  private final Map<CatalogSpec, GlueClient> glue = new ConcurrentHashMap<>();

  /**
   * An existing catalog: the one tables are read from, promoted or failed back in. Opening it never
   * creates it.
   *
   * @throws CatalogException when the catalog's client cannot be set up, or its SQLite file does
   *     not exist (naming the file); tried again next time
   */
  public Catalog get(CatalogSpec spec) {
    SqliteFile.of(spec)
        .filter(file -> !Files.exists(file))
        .ifPresent(
            file -> {
              throw new CatalogException(
                  "Cannot open "
                      + spec.describe()
                      + ": its SQLite file "
                      + file
                      + " does not exist (the replicator creates a catalog file only to register"
                      + " replicas in)",
                  null);
            });
    return open.computeIfAbsent(spec, IcebergCatalogs::open);
  }

  /**
   * The catalog replicas are registered in, created by the first registration when it is a SQLite
   * file not made yet, as Iceberg's JDBC catalog does, so a new DR catalog needs no setup.
   *
   * @throws CatalogException when the catalog's client cannot be set up; tried again next time
   */
  public Catalog registering(CatalogSpec spec) {
    return open.computeIfAbsent(spec, IcebergCatalogs::open);
  }

  /**
   * The SDK client that moves a Glue replica's entry, built from the catalog's own properties (its
   * region, endpoint, credentials) once and shared by every run, as the catalog's client is.
   */
  public GlueClient glue(CatalogSpec spec) {
    return glue.computeIfAbsent(
        spec,
        s -> AwsClientFactories.from(s.withDefaults(IcebergCatalogs.DEFAULTS).properties()).glue());
  }

  /**
   * Closes every client (their HTTP clients, JDBC connections).
   *
   * @throws CatalogException naming the first catalog that could not be closed, after trying all
   */
  @Override
  public void close() {
    CatalogException failed = null;
    for (Map.Entry<CatalogSpec, Catalog> each : open.entrySet()) {
      try {
        if (each.getValue() instanceof Closeable closeable) {
          closeable.close();
        }
      } catch (IOException | RuntimeException e) {
        if (failed == null) {
          failed =
              new CatalogException(
                  "Cannot close " + each.getKey().describe() + ": " + e.getMessage(), e);
        }
      }
    }
    for (Map.Entry<CatalogSpec, GlueClient> each : glue.entrySet()) {
      try {
        each.getValue().close();
      } catch (RuntimeException e) {
        if (failed == null) {
          failed =
              new CatalogException(
                  "Cannot close the Glue client of "
                      + each.getKey().describe()
                      + ": "
                      + e.getMessage(),
                  e);
        }
      }
    }
    open.clear();
    glue.clear();
    if (failed != null) {
      throw failed;
    }
  }
}
