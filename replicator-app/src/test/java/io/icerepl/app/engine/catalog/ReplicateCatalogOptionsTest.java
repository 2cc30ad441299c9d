package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.options.CatalogTable;
import io.icerepl.app.cli.options.TargetCatalogOption;
import io.icerepl.app.engine.catalog.SourceCatalog.Run;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The catalog options of {@code replicate}: a source is a location or a catalog's table, never
 * both; what does not fit together is a usage error (exit 2) before anything is opened or written.
 */
class ReplicateCatalogOptionsTest {
  private static final String CATALOG = "name=prod,type=rest,uri=http://127.0.0.1:1";

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "location and catalog | --source /s --source-catalog "
            + CATALOG
            + " --source-table db.t"
            + " | mutually exclusive",
        "neither | --max-metadata-bytes 10 | Missing required argument",
        "catalog without table | --source-catalog " + CATALOG + " | --source-table",
        "table without catalog | --source-table db.t | --source-catalog",
        "location with a source table | --source /s --source-table db.t | --source-catalog",
        "source metadata of a catalog table | --source-catalog "
            + CATALOG
            + " --source-table db.t --source-metadata v1.metadata.json"
            + " | error: Cannot replicate prod:db.t: --source-metadata names a file of a source"
            + " location",
        "replica identifier missing | --source /s --target-catalog "
            + CATALOG
            + " | error: Cannot register the replica in catalog prod (rest http://127.0.0.1:1):"
            + " --target-table is required when the source is a location",
        "target table without catalog | --source /s --target-table db.t | --target-catalog",
        "catalog property without value | --source-catalog name=prod,type --source-table db.t"
            + " | error: Cannot parse catalog property 'type': expected key=value",
        "catalog of an unknown type | --source-catalog type=hive --source-table db.t"
            + " | type=hive; supported: rest, glue, jdbc",
        "table without namespace | --source-catalog "
            + CATALOG
            + " --source-table t"
            + " | error: Cannot parse --source-table 't': expected <namespace>.<table>",
        "empty namespace level | --source-catalog "
            + CATALOG
            + " --source-table a..t"
            + " | error: Cannot parse --source-table 'a..t': expected <namespace>.<table>",
      })
  void optionsThatDoNotFitTogetherAreAUsageError(String what, String args, String message) {
    String[] given = args.trim().split(" +");
    String[] all = new String[given.length + 3];
    all[0] = "replicate";
    all[1] = "--target";
    all[2] = "/nowhere/replica";
    System.arraycopy(given, 0, all, 3, given.length);

    Run run = Run.of(all);

    assertThat(run.exit()).as(what + ": " + run.err()).isEqualTo(2);
    assertThat(run.err()).contains(message.trim());
    assertThat(new java.io.File("/nowhere")).doesNotExist();
  }

  @Test
  void theReplicaIsRegisteredUnderTheSourceIdentifierUnlessOneIsGiven() {
    TableIdentifier source = TableIdentifier.of("sales", "orders");

    Optional<CatalogTable> byDefault =
        CommandLine.populateCommand(new TargetCatalogOption(), "--target-catalog", CATALOG)
            .catalogTable(Optional.of(source));
    Optional<CatalogTable> given =
        CommandLine.populateCommand(
                new TargetCatalogOption(),
                "--target-catalog",
                CATALOG,
                "--target-table",
                "replicas.sales.orders")
            .catalogTable(Optional.of(source));
    Optional<CatalogTable> none =
        CommandLine.populateCommand(new TargetCatalogOption()).catalogTable(Optional.of(source));

    assertThat(byDefault).map(CatalogTable::describe).contains("prod:sales.orders");
    assertThat(given).map(CatalogTable::describe).contains("prod:replicas.sales.orders");
    assertThat(given.get().identifier().namespace().levels()).containsExactly("replicas", "sales");
    assertThat(none).isEmpty();
  }

  @Test
  void theUsageShowsTheSourceAsALocationOrACatalogTable() {
    String usage =
        new CommandLine(new io.icerepl.app.cli.ReplicatorCli())
            .getSubcommands()
            .get("replicate")
            .getUsageMessage(CommandLine.Help.Ansi.OFF);

    assertThat(usage.replaceAll("\\s+", " "))
        .contains(
            "(--source=<location> | (--source-catalog=<props> --source-table=<namespace.table>))",
            "[--target-catalog=<props> [--target-table=<namespace.table>]]");
  }
}
