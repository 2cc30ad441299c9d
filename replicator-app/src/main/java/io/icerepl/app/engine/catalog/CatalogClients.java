package io.icerepl.app.engine.catalog;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open client per catalog, shared by every table of the rules that name it: a REST client keeps
 * its session and a JDBC catalog its connection pool across runs. Closed with the service.
 */
public final class CatalogClients implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogClients.class);

  private final Map<CatalogSpec, Catalog> open = new ConcurrentHashMap<>();

  /**
   * @throws CatalogException when the catalog's client cannot be set up; tried again next time
   */
  public Catalog get(CatalogSpec spec) {
    return open.computeIfAbsent(spec, IcebergCatalogs::open);
  }

  @Override
  public void close() {
    open.forEach(
        (spec, catalog) -> {
          if (catalog instanceof Closeable closeable) {
            try {
              closeable.close();
            } catch (IOException | RuntimeException e) {
              LOG.warn("Cannot close {}: {}", spec.describe(), e.getMessage());
            }
          }
        });
    open.clear();
  }
}
