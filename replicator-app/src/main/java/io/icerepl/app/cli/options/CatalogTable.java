package io.icerepl.app.cli.options;

import io.icerepl.app.engine.catalog.CatalogSpec;
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
