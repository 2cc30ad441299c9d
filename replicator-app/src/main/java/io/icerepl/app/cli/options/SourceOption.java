package io.icerepl.app.cli.options;

import io.icerepl.app.engine.catalog.CatalogSpec;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The source table a command reads: a table location, or a table of a catalog, which then names the
 * table's current metadata file itself.
 */
public final class SourceOption {
  @ArgGroup(exclusive = true, multiplicity = "1")
  Choice choice;

  static final class Choice {
    @Option(
        names = "--source",
        required = true,
        paramLabel = "<location>",
        converter = LocationConverter.class,
        description = "Source table location: an absolute path, a file: URI or s3://bucket/path.")
    String location;

    @ArgGroup(exclusive = false, multiplicity = "1")
    CatalogOptions catalogTable;

    Optional<String> location() {
      return Optional.ofNullable(location);
    }

    Optional<CatalogTable> catalogTable() {
      if (catalogTable == null) {
        return Optional.empty();
      }
      return Optional.of(
          CatalogTable.parse(catalogTable.catalog, "--source-table", catalogTable.table));
    }
  }

  static final class CatalogOptions {
    @Option(
        names = "--source-catalog",
        required = true,
        paramLabel = "<props>",
        description =
            "Source catalog: comma-separated Iceberg catalog properties and name=<catalog name>"
                + " (default "
                + CatalogSpec.DEFAULT_NAME
                + "), e.g. name=prod,type=rest,uri=http://127.0.0.1:8181; type=rest, glue or jdbc.")
    String catalog;

    @Option(
        names = "--source-table",
        required = true,
        paramLabel = "<namespace.table>",
        description = "The source table's identifier in --source-catalog.")
    String table;
  }

  /** The source location, unless the source is a catalog's table. */
  public Optional<String> location() {
    return choice.location();
  }

  /**
   * The source catalog and the table's identifier in it, unless the source is a location.
   *
   * @throws IllegalArgumentException when the catalog's properties or the identifier do not parse
   */
  public Optional<CatalogTable> catalogTable() {
    return choice.catalogTable();
  }
}
