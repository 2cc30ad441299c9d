package io.icerepl.app.cli.commands;

import io.icerepl.app.cli.options.CatalogTable;
import io.icerepl.app.cli.options.DurationConverter;
import io.icerepl.app.cli.options.LocationConverter;
import io.icerepl.app.cli.options.StoreOptions;
import io.icerepl.app.cli.options.TuningOptions;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.catalog.ReplicaRegistrar;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.failover.FailbackSummary;
import io.icerepl.app.engine.failover.GroupFailback;
import io.icerepl.app.engine.failover.TableFailback;
import io.icerepl.app.engine.head.SourceHeadResolver;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code failback}: makes the original location of a promoted table its replica again. */
@Command(
    name = "failback",
    header = "Makes the original location a replica of the promoted table.",
    description = {
      "The original gets the promoted table's whole history. Commits only the old source made after its last replicated version are kept under tags <tag-prefix>-<time>[-<ref>] and listed. Rerun it to carry the promoted table's new commits over; the tags stay. The --source-* store options apply to the promoted table, the --target-* ones to the original. With --primary-catalog the promoted table's head is the file its catalog names; --old-source-catalog moves the original's catalog entry to what fail-back publishes."
    },
    footer = {
      "  replicator failback --primary s3://dr/db/t --old-source s3://lake/db/t",
      "  replicator failback --consistent sales \\",
      "      --primary s3://dr/sales/orders --old-source s3://lake/sales/orders \\",
      "      --primary s3://dr/sales/order_items \\",
      "      --old-source s3://lake/sales/order_items"
    },
    exitCodeList = {
      "0:failed back",
      "1:refused or failed; the original is left as it was",
      "2:a bad argument"
    })
public final class FailbackCommand extends TableCommand {
  @Option(
      names = "--primary",
      required = true,
      paramLabel = "<location>",
      converter = LocationConverter.class,
      description =
          "The promoted table's location, the primary now. With --consistent, once per table of"
              + " the group.")
  List<String> primaries;

  @Option(
      names = "--old-source",
      required = true,
      paramLabel = "<location>",
      converter = LocationConverter.class,
      description =
          "The original table's location, the old source. With --consistent, once per --primary,"
              + " in the same order.")
  List<String> oldSources;

  @Option(
      names = "--consistent",
      paramLabel = "<ref>",
      description =
          "Fail back every --primary into its --old-source, then tag one cut of the promoted"
              + " tables on every original, named <ref>-<yyyyMMddTHHmmssZ>: read at it the"
              + " originals show one moment of the promoted tables, and promote --consistent <ref>"
              + " on the originals switches back at it.")
  String consistent;

  @Option(
      names = "--clock-skew",
      paramLabel = "<duration>",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description =
          "With --consistent: how far the promoted tables' writers' clocks may run behind this"
              + " machine's; the cut is taken that much earlier.")
  Duration clockSkew;

  @Option(
      names = "--transaction-window",
      paramLabel = "<duration>",
      defaultValue = "0s",
      converter = DurationConverter.class,
      description =
          "With --consistent: the cut is moved back out of any multi-table transaction whose"
              + " snapshots lie closer together than this.")
  Duration transactionWindow;

  @Option(
      names = "--keep-tags",
      paramLabel = "<duration>",
      defaultValue = "7d",
      converter = DurationConverter.class,
      description = "With --consistent: how long the cut tag stays on the originals.")
  Duration keepTags;

  @ArgGroup(exclusive = false)
  PrimaryCatalog primaryCatalog;

  @ArgGroup(exclusive = false)
  OldSourceCatalog oldSourceCatalog;

  @Option(
      names = "--epoch",
      paramLabel = "E",
      description =
          "Fail back only if the primary is still promoted at epoch E (its status's epoch), the"
              + " promotion the decision was made on.")
  Long epoch;

  @Option(
      names = "--tag-prefix",
      paramLabel = "<prefix>",
      description = "The prefix of the tags that keep the old source's orphan commits.")
  String tagPrefix = TableFailback.DEFAULT_TAG_PREFIX;

  @CommandLine.Mixin TuningOptions tuning;

  /** How long a group's original may take to hold its promoted table's head. */
  private static final Duration GROUP_PATIENCE = Duration.ofMinutes(2);

  @Override
  public Integer call() throws InterruptedException {
    if (consistent != null) {
      return failbackGroup();
    }
    if (primaries.size() != 1 || oldSources.size() != 1) {
      throw new IllegalArgumentException(
          "Cannot fail back "
              + primaries
              + ": give one --primary and one --old-source, or --consistent <ref> to fail a"
              + " group's tables back at one cut");
    }
    String primary = primaries.get(0);
    String oldSource = oldSources.get(0);
    ReplicationOptions options = tuning.replication();
    Optional<CatalogTable> primaryTable =
        Optional.ofNullable(primaryCatalog).map(PrimaryCatalog::catalogTable);
    Optional<CatalogTable> originalTable =
        Optional.ofNullable(oldSourceCatalog).map(o -> o.catalogTable(primaryTable));
    ExecutorService executor = tuning.newPool();
    try (StoreOptions opened = stores;
        CatalogClients catalogs = new CatalogClients()) {
      Optional<SourceHeadResolver> primaryHead =
          primaryTable.map(t -> stores.sourceHead(catalogs, t));
      Optional<ReplicaRegistrar> originalEntry =
          originalTable.map(
              t -> stores.catalogEntry(catalogs, catalogs::get, t, stores.target(oldSource)));
      FailbackSummary summary =
          new TableFailback(
                  stores.source(primary),
                  stores.target(oldSource),
                  Clock.systemUTC(),
                  executor,
                  options,
                  tagPrefix,
                  new TableCatalogs(primaryHead, originalEntry))
              .failback(
                  primary,
                  oldSource,
                  epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch));
      Report report =
          Report.aligned()
              .put("primary", "primary", primary)
              .put("oldSource", "old source", summary.originalLocation())
              .put("snapshotsAdded", "snapshots added", summary.snapshotsAdded())
              .put("filesCopied", "files copied", summary.filesCopied())
              .put("bytesCopied", "bytes copied", summary.bytesCopied())
              .list("replicaMetadataFiles");
      summary
          .replicaMetadataFiles()
          .forEach(f -> report.item("replicaMetadataFiles", "replica metadata", f));
      report
          .put("orphanSnapshots", "orphan snapshots", summary.orphanSnapshotIds())
          .list("orphanTags");
      for (Map.Entry<String, Long> tag : new TreeMap<>(summary.orphanTags()).entrySet()) {
        report.item(
            "orphanTags",
            "orphan tag",
            Map.of("name", tag.getKey(), "snapshotId", tag.getValue()),
            tag.getKey() + " -> " + tag.getValue());
      }
      originalTable.ifPresent(t -> report.put("catalogEntry", "catalog entry", t.describe()));
      print(report);
      return 0;
    } finally {
      executor.shutdownNow();
    }
  }

  /** {@code --consistent}: every pair failed back, one cut tagged on every original. */
  private Integer failbackGroup() throws InterruptedException {
    if (primaries.size() != oldSources.size()) {
      throw new IllegalArgumentException(
          "Cannot fail back "
              + primaries
              + " at a cut of "
              + consistent
              + ": give one --old-source per --primary, in the same order ("
              + primaries.size()
              + " --primary, "
              + oldSources.size()
              + " --old-source)");
    }
    if (primaryCatalog != null || oldSourceCatalog != null || epoch != null) {
      throw new IllegalArgumentException(
          "Cannot fail back "
              + primaries
              + " at a cut of "
              + consistent
              + ": --consistent takes the tables' locations only (no catalog, no --epoch)");
    }
    if (consistent.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot fail back " + primaries + ": --consistent is blank");
    }
    ReplicationOptions options = tuning.replication();
    ExecutorService executor = tuning.newPool();
    try (StoreOptions opened = stores) {
      List<GroupFailback.Member> members = new ArrayList<>();
      for (int i = 0; i < primaries.size(); i++) {
        String primary = primaries.get(i);
        String original = oldSources.get(i);
        members.add(
            new GroupFailback.Member(
                original,
                primary,
                original,
                stores.source(primary),
                stores.target(original),
                TableCatalogs.NONE));
      }
      GroupFailback.Result result =
          new GroupFailback(Clock.systemUTC(), executor, options, tagPrefix, GROUP_PATIENCE)
              .failback(members, consistent, clockSkew, transactionWindow, keepTags);
      Report report =
          Report.aligned()
              .put("cutTag", "cut tag", result.cutTag())
              .put("cut", "cut", result.cut().toString())
              .list("tables");
      for (int i = 0; i < result.tables().size(); i++) {
        GroupFailback.TableResult table = result.tables().get(i);
        FailbackSummary summary = table.failback();
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("primary", primaries.get(i));
        item.put("oldSource", summary.originalLocation());
        item.put("knownCurrentFrom", table.knownCurrentFrom().toString());
        item.put("cutSnapshotId", table.cutSnapshotId());
        item.put("changedAfterCut", table.changedAfterCut());
        item.put("snapshotsAdded", summary.snapshotsAdded());
        item.put("filesCopied", summary.filesCopied());
        item.put("bytesCopied", summary.bytesCopied());
        item.put("orphanTags", new TreeMap<>(summary.orphanTags()));
        report.item(
            "tables",
            "table",
            item,
            summary.originalLocation()
                + ": "
                + (table.cutSnapshotId() == null
                    ? "no snapshot at the cut, not tagged"
                    : "at the cut " + table.cutSnapshotId())
                + (table.changedAfterCut() == 0
                    ? ""
                    : ", main changed " + table.changedAfterCut() + " time(s) after it")
                + ", "
                + summary.snapshotsAdded()
                + " snapshot(s) added"
                + (summary.orphanTags().isEmpty()
                    ? ""
                    : ", orphans kept as " + new TreeMap<>(summary.orphanTags())));
      }
      print(report);
      return 0;
    } finally {
      executor.shutdownNow();
    }
  }

  /** The promoted table's catalog, when writers commit to it through one. */
  static final class PrimaryCatalog {
    @Option(
        names = "--primary-catalog",
        required = true,
        paramLabel = "<props>",
        description =
            "The promoted table's catalog, whose pointer names its head (writers commit through"
                + " it): Iceberg catalog properties and name=<catalog name>, as --source-catalog.")
    String catalog;

    @Option(
        names = "--primary-table",
        required = true,
        paramLabel = "<namespace.table>",
        description = "The promoted table's identifier in --primary-catalog.")
    String table;

    CatalogTable catalogTable() {
      return CatalogTable.parse(catalog, "--primary-table", table);
    }
  }

  /** The original's catalog, whose entry is moved to what fail-back publishes. */
  static final class OldSourceCatalog {
    @Option(
        names = "--old-source-catalog",
        required = true,
        paramLabel = "<props>",
        description =
            "The original table's catalog: its entry is moved to each version fail-back publishes,"
                + " read-only, as --target-catalog moves a replica's.")
    String catalog;

    @Option(
        names = "--old-source-table",
        paramLabel = "<namespace.table>",
        description =
            "The original's identifier in --old-source-catalog. Default: --primary-table's;"
                + " required without it.")
    String table;

    CatalogTable catalogTable(Optional<CatalogTable> primaryTable) {
      return CatalogTable.parse(
          catalog,
          "--old-source-table",
          table,
          primaryTable.map(CatalogTable::identifier),
          "Cannot move the original's entry",
          "--old-source-table is required without --primary-table");
    }
  }
}
