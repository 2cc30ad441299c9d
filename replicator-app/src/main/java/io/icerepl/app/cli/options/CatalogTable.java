package io.icerepl.app.cli.options;

import io.icerepl.app.engine.catalog.CatalogSpec;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table of a catalog, as the command line names it.
 *
 * @param catalog the catalog, as the user named it
 * @param identifier the table's identifier in it
 */
public record CatalogTable(CatalogSpec catalog, TableIdentifier identifier) {

  /** How output and errors name the table: {@code <catalog>:<identifier>}. */
  public String describe() {
    return catalog.name() + ":" + identifier;
  }

  /**
   * A catalog's table as two options give it.
   *
   * @param properties the catalog's properties
   * @param tableOption the option that gave {@code table}, for the error
   * @throws IllegalArgumentException when the properties or the identifier do not parse
   */
  public static CatalogTable parse(String properties, String tableOption, String table) {
    return new CatalogTable(CatalogSpec.parse(properties), identifier(tableOption, table));
  }

  /**
   * As {@link #parse(String, String, String)}, the identifier defaulting to another table's when
   * {@code table} is null.
   *
   * @param otherwise the identifier of the table it defaults to, if there is one
   * @param cannot what cannot be done without an identifier, for the error
   * @param reason why, for the error
   * @throws IllegalArgumentException when the properties or the identifier do not parse, or there
   *     is no identifier
   */
  public static CatalogTable parse(
      String properties,
      String tableOption,
      String table,
      Optional<TableIdentifier> otherwise,
      String cannot,
      String reason) {
    CatalogSpec catalog = CatalogSpec.parse(properties);
    if (table != null) {
      return new CatalogTable(catalog, identifier(tableOption, table));
    }
    return new CatalogTable(
        catalog,
        otherwise.orElseThrow(
            () ->
                new IllegalArgumentException(
                    cannot + " in " + catalog.describe() + ": " + reason)));
  }

  /**
   * @param option the option that gave {@code text}, for the error
   * @throws IllegalArgumentException unless {@code text} is {@code <namespace>.<table>}, with a
   *     namespace of one level or more and no empty level
   */
  public static TableIdentifier identifier(String option, String text) {
    boolean emptyLevel = text.isBlank() || text.contains("..") || text.endsWith(".");
    TableIdentifier identifier = emptyLevel ? null : TableIdentifier.parse(text);
    if (identifier == null || !identifier.hasNamespace() || text.startsWith(".")) {
      throw new IllegalArgumentException(
          "Cannot parse " + option + " '" + text + "': expected <namespace>.<table>");
    }
    return identifier;
  }
}
