package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.CatalogTable;
import io.icerepl.app.cli.options.OptionalSourceOption;
import io.icerepl.app.cli.options.StoreOptions;
import io.icerepl.app.cli.options.TargetOption;
import io.icerepl.app.cli.options.TuningOptions;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.head.FileSystemHeadResolver;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.app.engine.verify.VerifyResult;
import io.icerepl.app.engine.verify.VerifySource;
import io.icerepl.app.logging.Redaction;
import io.icerepl.copier.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import org.apache.iceberg.TableMetadata;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code verify}: proves a replica complete, and with a source, as complete as the source. */
@Command(
    name = "verify",
    header = "Checks that a replica is complete and self-contained, reading only.",
    description = {
      "Every snapshot's manifest list and manifests decode; every file a snapshot or statistics entry names exists with its recorded length (and the source's checksum for byte-for-byte copies, where both stores keep one); no path points outside the replica. With --source, every snapshot and ref of the source is on the replica unless the replica's own retention removed it. Prints one line per problem, then 'N checked, M problems'."
    },
    footer = {"  replicator verify --target s3://dr/db/t --source s3://lake/db/t"},
    exitCodeList = {
      "0:no problem found",
      "1:a problem found, or the replica could not be read",
      "2:a bad argument"
    })
public final class VerifyCommand extends TableCommand {
  /** The source to compare with: a location (its head as replicate resolves it) or a catalog's. */
  @CommandLine.Mixin OptionalSourceOption source;

  @CommandLine.Mixin TargetOption target;

  @CommandLine.Mixin TuningOptions tuning;

  /** The problems a JSON result lists at the most; {@code problems} counts them all. */
  static final int PROBLEMS_IN_JSON = 10_000;

  @Override
  public Integer call() {
    if (tuning.threads() < 1) {
      throw new IllegalArgumentException(
          "Cannot verify " + target.target() + ": --threads must be at least 1");
    }
    PrintWriter out = out();
    ExecutorService pool = tuning.newPool();
    try (StoreOptions opened = stores;
        CatalogClients catalogs = new CatalogClients()) {
      // people see each problem as it is found; scripts get them in the one JSON object
      List<String> problems = new ArrayList<>();
      Consumer<String> problem =
          output.json()
              ? line -> {
                if (problems.size() < PROBLEMS_IN_JSON) {
                  problems.add(line);
                }
              }
              : line -> out().println(Redaction.apply(line));
      VerifyResult result =
          new TableVerifier(
                  stores.target(target.target()), pool, tuning.threads(), tuning.maxMetadataBytes())
              .verify(target.target(), source(catalogs), problem);
      print(
          Report.aligned()
              .json("replica", target.target())
              .json("checked", result.checked())
              .json("problems", result.problems())
              .json("problemLines", problems)
              .text(result.checked() + " checked, " + result.problems() + " problems"));
      return result.problems() == 0 ? 0 : 1;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The source to compare with: its current metadata, resolved as {@code replicate} does (a
   * catalog's table: the file its catalog names).
   */
  private Optional<VerifySource> source(CatalogClients catalogs) {
    Optional<CatalogTable> table = source.catalogTable();
    if (table.isPresent()) {
      TableMetadata current = stores.sourceHead(catalogs, table.get()).current();
      return Optional.of(
          new VerifySource(
              stores.source(current.location()),
              current.location(),
              current.metadataFileLocation()));
    }
    if (source.location().isEmpty()) {
      return Optional.empty();
    }
    String location = source.location().get();
    ObjectStore store = stores.source(location);
    String head =
        new FileSystemHeadResolver(store, Clock.systemUTC(), tuning.settleTime())
            .head(location)
            .file();
    return Optional.of(new VerifySource(store, location, head));
  }
}
