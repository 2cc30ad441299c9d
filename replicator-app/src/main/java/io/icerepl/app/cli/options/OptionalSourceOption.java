package io.icerepl.app.cli.options;

import java.util.Optional;
import picocli.CommandLine.ArgGroup;

/**
 * A source table a command may compare with: a table location, a catalog's table, or none. The
 * options are {@link SourceOption}'s.
 */
public final class OptionalSourceOption {
  @ArgGroup(exclusive = true, multiplicity = "0..1")
  SourceOption.Choice choice;

  /** The source location, when one was given. */
  public Optional<String> location() {
    return Optional.ofNullable(choice).flatMap(SourceOption.Choice::location);
  }

  /** The source catalog and the table's identifier in it, when they were given. */
  public Optional<CatalogTable> catalogTable() {
    return Optional.ofNullable(choice).flatMap(SourceOption.Choice::catalogTable);
  }
}
