package io.icerepl.app.engine.catalog;

import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.merge.error.MissingFileException;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * A source table's head as its catalog names it: the catalog's {@code metadata-location}, the one
 * file its last successful commit made current. Folder listings are never used for such a table, so
 * the file of a writer that lost a commit race is never taken for the head.
 */
public record CatalogHeadResolver(Catalog catalog, CatalogSpec spec, TableIdentifier identifier)
    implements SourceHeadResolver {

  /** The table's current metadata as the catalog serves it. */
  public TableMetadata current() {
    Table table;
    try {
      table = catalog.loadTable(identifier);
    } catch (NoSuchTableException e) {
      throw new MissingFileException(
          "Cannot read source table " + identifier + ": " + spec.describe() + " has no such table",
          spec.name() + ":" + identifier);
    } catch (RuntimeException e) {
      throw new CatalogException(
          "Cannot read source table "
              + identifier
              + " from "
              + spec.describe()
              + ": "
              + IcebergCatalogs.reason(e),
          e);
    }
    if (!(table instanceof HasTableOperations operations)) {
      throw new CatalogException(
          "Cannot read source table "
              + identifier
              + " from "
              + spec.describe()
              + ": the catalog's client does not expose the table's metadata location",
          null);
    }
    return operations.operations().current();
  }

  /** The table's location, where its replica's paths are mapped from. */
  public String tableLocation() {
    return current().location();
  }

  /** {@inheritDoc} The location is the catalog's; it is not listed. */
  @Override
  public Head head(String location) {
    String file = current().metadataFileLocation();
    if (file == null) {
      throw new CatalogException(
          "Cannot read source table "
              + identifier
              + " from "
              + spec.describe()
              + ": the catalog names no metadata file",
          null);
    }
    return Head.given(file);
  }

  /** How logs and the status API name the source: catalog and identifier. */
  public String describe() {
    return spec.name() + ":" + identifier;
  }
}
