package io.icerepl.app.cli.options;

import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** The catalog a replica is registered in, if any, and its identifier there. */
public final class TargetCatalogOption {
  @ArgGroup(exclusive = false)
  Registration registration;

  static final class Registration {
    @Option(
        names = "--target-catalog",
        required = true,
        paramLabel = "<props>",
        description =
            "Catalog the replica is registered in (replicate moves its entry after every run,"
                + " promote makes it writable): its Iceberg catalog properties and"
                + " name=<catalog name>, as --source-catalog.")
    String catalog;

    @Option(
        names = "--target-table",
        paramLabel = "<namespace.table>",
        description =
            "The replica's identifier in --target-catalog. Default: the --source-table identifier;"
                + " required with --source.")
    String table;
  }

  /**
   * The target catalog and the replica's identifier in it, if the replica is to be registered.
   *
   * @param sourceIdentifier the source table's identifier in its catalog, the default
   * @throws IllegalArgumentException when the catalog's properties or the identifier do not parse,
   *     or no identifier is given for a source that has none
   */
  public Optional<CatalogTable> catalogTable(Optional<TableIdentifier> sourceIdentifier) {
    if (registration == null) {
      return Optional.empty();
    }
    return Optional.of(
        CatalogTable.parse(
            registration.catalog,
            "--target-table",
            registration.table,
            sourceIdentifier,
            "Cannot register the replica",
            "--target-table is required when the source is a location"));
  }
}
