package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.StoreOptions;
import picocli.CommandLine;

/**
 * A command on tables in object stores: local paths, or {@code s3://} with a region and endpoint
 * per side, as {@link StoreOptions} says.
 */
abstract class TableCommand extends ReportingCommand {

  @CommandLine.Mixin StoreOptions stores;
}
