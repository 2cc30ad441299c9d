package io.icerepl.app.cli;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.failback.FailbackSummary;
import io.icerepl.app.engine.failback.TableFailback;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code failback}: makes the original location of a promoted table its replica again. */
@Command(
    name = "failback",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = {
      "Fails back: the original location becomes a replica of the promoted table, holding its",
      "whole history. Commits only the old source made (after its last replicated version) are",
      "kept under tags <tag-prefix>-<time>[-<ref>] and listed. Rerun it to carry the promoted",
      "table's new commits over; the tags stay. The --source-* store options apply to the",
      "promoted table, the --target-* ones to the original. Exit 1 on error, the original left",
      "as it was."
    })
public final class FailbackCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin StoreOptions stores;

  @Option(
      names = "--primary",
      required = true,
      paramLabel = "<location>",
      description = "The promoted table's location, the primary now.")
  String primary;

  @Option(
      names = "--old-source",
      required = true,
      paramLabel = "<location>",
      description = "The original table's location, the old source.")
  String oldSource;

  @Option(
      names = "--tag-prefix",
      paramLabel = "<prefix>",
      description = "The prefix of the tags that keep the old source's orphan commits.")
  String tagPrefix = TableFailback.DEFAULT_TAG_PREFIX;

  @CommandLine.Mixin MetadataLimitOption metadataLimit;

  @CommandLine.Mixin SettleTimeOption settle;

  @CommandLine.Mixin ThreadsOption threads;

  @Override
  public Integer call() {
    ReplicationOptions options =
        new ReplicationOptions(
            List.of(),
            false,
            metadataLimit.maxMetadataBytes(),
            threads.threads(),
            settle.settleTime());
    ExecutorService executor = Executors.newFixedThreadPool(threads.threads());
    try (StoreOptions opened = stores) {
      FailbackSummary summary =
          new TableFailback(
                  stores.source(primary),
                  stores.target(oldSource),
                  Clock.systemUTC(),
                  executor,
                  options,
                  tagPrefix)
              .failback(primary, oldSource);
      PrintWriter out = spec.commandLine().getOut();
      out.println("primary            " + primary);
      out.println("old source         " + summary.originalLocation());
      out.println("snapshots added    " + summary.snapshotsAdded());
      out.println("files copied       " + summary.filesCopied());
      out.println("bytes copied       " + summary.bytesCopied());
      summary.replicaMetadataFiles().forEach(f -> out.println("replica metadata   " + f));
      out.println("orphan snapshots   " + summary.orphanSnapshotIds());
      for (Map.Entry<String, Long> tag : new java.util.TreeMap<>(summary.orphanTags()).entrySet()) {
        out.println("orphan tag         " + tag.getKey() + " -> " + tag.getValue());
      }
      out.flush();
      return 0;
    } finally {
      executor.shutdownNow();
    }
  }
}
