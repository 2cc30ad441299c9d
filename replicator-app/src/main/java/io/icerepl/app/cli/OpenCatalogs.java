package io.icerepl.app.cli;

import io.icerepl.app.engine.catalog.CatalogException;
import io.icerepl.app.engine.catalog.CatalogSpec;
import io.icerepl.app.engine.catalog.IcebergCatalogs;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;

/** The catalogs a command opened, closed with it (their HTTP clients, JDBC connections). */
final class OpenCatalogs implements AutoCloseable {
  private final List<Opened> opened = new ArrayList<>();

  private record Opened(CatalogSpec spec, Catalog catalog) {}

  /**
   * @throws CatalogException naming the catalog when it cannot be opened
   */
  Catalog open(CatalogSpec spec) {
    Catalog catalog = IcebergCatalogs.open(spec);
    opened.add(new Opened(spec, catalog));
    return catalog;
  }

  @Override
  public void close() {
    CatalogException failed = null;
    for (Opened each : opened) {
      try {
        if (each.catalog() instanceof Closeable closeable) {
          closeable.close();
        }
      } catch (IOException | RuntimeException e) {
        if (failed == null) {
          failed =
              new CatalogException(
                  "Cannot close " + each.spec().describe() + ": " + e.getMessage(), e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }
}
