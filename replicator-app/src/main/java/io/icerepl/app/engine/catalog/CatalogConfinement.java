package io.icerepl.app.engine.catalog;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.path.TableLocation;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Where a catalog's table may lie. A catalog's row names the table's metadata, and so where its
 * files are: a row pointing at another table's metadata would have that table's files copied. The
 * location a catalog reports must lie under the allowed prefixes given (a rule's {@code
 * allowed-source-prefixes}, the command line's {@code --allow-source-prefix}), or under the
 * catalog's warehouse when none are given. The service and the command line both ask here.
 */
public final class CatalogConfinement {
  private CatalogConfinement() {}

  /**
   * The roots a catalog's tables must lie under: {@code allowed} if any, else the catalog's
   * warehouse; empty when neither is known (a REST server that says no warehouse), which leaves its
   * tables unconfined.
   */
  public static List<String> roots(List<String> allowed, CatalogSpec spec, Catalog catalog) {
    if (!allowed.isEmpty()) {
      return List.copyOf(allowed);
    }
    return warehouse(spec, catalog).map(List::of).orElse(List.of());
  }

  /**
   * @param table the table's name, for the message
   * @param roots from {@link #roots}; none confines nothing
   * @throws BadInputException when {@code location} lies under none of {@code roots}
   */
  public static void check(
      String table, CatalogSpec spec, String location, List<String> roots, String rootsAre) {
    if (roots.isEmpty()) {
      return;
    }
    TableLocation reported = TableLocation.of(location);
    if (roots.stream().noneMatch(root -> TableLocation.of(root).contains(reported))) {
      throw new BadInputException(
          "Cannot replicate table "
              + table
              + " of "
              + spec.describe()
              + ": the catalog reports its location "
              + location
              + ", outside "
              + rootsAre
              + " "
              + roots
              + "; nothing was copied");
    }
  }

  /**
   * The catalog's warehouse: as configured, or as a REST server's configuration says; only a
   * location counts (S3 Tables names its warehouse by an ARN, Polaris by a catalog name: no root
   * then).
   */
  static Optional<String> warehouse(CatalogSpec spec, Catalog catalog) {
    String configured = spec.properties().get("warehouse");
    if (isLocation(configured)) {
      return Optional.of(configured);
    }
    if (catalog instanceof RESTCatalog rest) {
      String served = rest.properties().get("warehouse");
      if (isLocation(served)) {
        return Optional.of(served);
      }
    }
    return Optional.empty();
  }

  private static boolean isLocation(String value) {
    return value != null
        && (value.contains("://") || value.startsWith("/") || value.startsWith("file:"));
  }
}
