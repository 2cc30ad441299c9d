package io.icerepl.lab.bench;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * Peak heap of replicating a table with many data files in many manifests, local to local. The
 * manifests are written with Iceberg's manifest writer and committed in one fast append (v2
 * manifests inherit the snapshot id, so they are used as written). The data files are empty
 * placeholders of their recorded size (0 bytes): the copier checks existence and length, and
 * copying their bytes is not what is measured. The baseline is what any reader of the table does
 * first: parse its metadata JSON and read its manifest list, with the Iceberg library.
 */
public final class MemoryBenchmark {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));
  private static final double MIB = 1024 * 1024;

  private final PrintWriter out;

  public MemoryBenchmark(PrintWriter out) {
    this.out = out;
  }

  /**
   * @param targets the stores replicated to, one after the other, each measured on its own
   */
  public void run(
      Path workDir, int files, int manifests, int threads, List<BenchTarget.Kind> targets)
      throws Exception {
    long maxHeap = Runtime.getRuntime().maxMemory();
    out.printf(
        "memory: %d data files in %d manifests, local to %s, %d threads, max heap (-Xmx) %.0f MiB, under %s%n",
        files,
        manifests,
        targets.stream().map(BenchTarget.Kind::label).toList(),
        threads,
        maxHeap / MIB,
        workDir);
    out.flush();
    String source = workDir.resolve("source").toUri().toString();
    long start = System.nanoTime();
    Table table = writeSourceTable(source, files, manifests);
    Path metadataDir = workDir.resolve("source/metadata");
    out.printf(
        "source table written in %.1f s; metadata: JSON %.1f KiB, manifest list %.1f KiB, manifests %.1f MiB%n",
        (System.nanoTime() - start) / 1e9,
        size(metadataDir, ".metadata.json") / 1024.0,
        size(metadataDir, "snap-") / 1024.0,
        size(metadataDir, "bench-m") / MIB);
    out.flush();
    table = null; // the writer's objects must not count in either phase

    long baselineLive;
    long baselinePeak;
    long baselineAfterGc;
    try (HeapPeak peak = HeapPeak.start()) {
      baselineLive = HeapPeak.liveNow();
      Table read = new HadoopTables(new Configuration()).load(source);
      List<ManifestFile> list = read.currentSnapshot().allManifests(read.io());
      if (list.size() != manifests) {
        throw new IllegalStateException(
            "read " + list.size() + " manifests, expected " + manifests);
      }
      baselinePeak = peak.peakUsed();
      baselineAfterGc = peak.peakAfterGc();
    }

    // "peak after GC" is the largest heap left by a collection during the phase; "-" when none ran
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            "%-46s %14s %14s %16s", "MiB", "live at start", "peak used", "peak after GC"));
    lines.add(
        String.format(
            "%-46s %14.1f %14.1f %16s",
            "baseline: parse metadata JSON + manifest list",
            baselineLive / MIB,
            baselinePeak / MIB,
            afterGc(baselineAfterGc)));
    List<Long> peaks = new ArrayList<>();
    for (BenchTarget.Kind kind : targets) {
      long replicatorLive;
      long replicatorPeak;
      long replicatorAfterGc;
      ReplicationSummary summary;
      double seconds;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try (BenchTarget target = BenchTarget.start(kind, workDir.resolve("target-" + kind.label()));
          HeapPeak peak = HeapPeak.start()) {
        replicatorLive = HeapPeak.liveNow();
        ReplicationOptions defaults = ReplicationOptions.defaults();
        TableReplicator replicator =
            TableReplicator.builder(
                    new LocalObjectStore(),
                    target.store(),
                    pool,
                    new ReplicationOptions(
                        defaults.extraPrefixes(), false, defaults.maxMetadataBytes(), threads))
                .clock(Clock.systemUTC())
                .build();
        String replica = target.location("replica") + "/table";
        long replicateStart = System.nanoTime();
        summary = replicator.replicate(source, replica, Optional.empty());
        seconds = (System.nanoTime() - replicateStart) / 1e9;
        replicatorPeak = peak.peakUsed();
        replicatorAfterGc = peak.peakAfterGc();
      } finally {
        pool.shutdownNow();
      }
      out.printf(
          "replicated to %s in %.1f s: %d files copied, %d rewritten, %d replica commits%n",
          kind.label(),
          seconds,
          summary.filesCopied(),
          summary.filesRewritten(),
          summary.versionsApplied());
      out.flush();
      peaks.add(replicatorPeak);
      lines.add(
          String.format(
              "%-46s %14.1f %14.1f %16s",
              "replicator: replicate the table to " + kind.label(),
              replicatorLive / MIB,
              replicatorPeak / MIB,
              afterGc(replicatorAfterGc)));
    }
    lines.forEach(out::println);
    out.printf("max heap (-Xmx) %.0f MiB%n", maxHeap / MIB);
    for (int t = 0; t < targets.size(); t++) {
      out.printf(
          "ratio replicator to %s / baseline (peak used): %.2f%n",
          targets.get(t).label(), (double) peaks.get(t) / baselinePeak);
    }
    for (int t = 1; t < targets.size(); t++) {
      out.printf(
          "ratio replicator to %s / to %s (peak used): %.2f%n",
          targets.get(t).label(), targets.get(0).label(), (double) peaks.get(t) / peaks.get(0));
    }
    out.flush();
  }

  private static String afterGc(long bytes) {
    return bytes == 0 ? "-" : String.format("%.1f", bytes / MIB);
  }

  /** The table, its manifests and its placeholder data files (one folder per manifest). */
  private static Table writeSourceTable(String location, int files, int manifests)
      throws IOException {
    Table table =
        new HadoopTables(new Configuration())
            .create(
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"),
                location);
    Path data = Path.of(java.net.URI.create(location)).resolve("data");
    AppendFiles append = table.newFastAppend();
    for (int m = 0; m < manifests; m++) {
      Path folder = Files.createDirectories(data.resolve(String.format("m%05d", m)));
      String manifestPath = location + "/metadata/" + String.format("bench-m%05d.avro", m);
      ManifestWriter<org.apache.iceberg.DataFile> writer =
          ManifestFiles.write(2, table.spec(), table.io().newOutputFile(manifestPath), null);
      int inThis = files / manifests + (m < files % manifests ? 1 : 0);
      try (writer) {
        for (int f = 0; f < inThis; f++) {
          Path file = Files.createFile(folder.resolve(String.format("f%05d.parquet", f)));
          writer.add(
              DataFiles.builder(table.spec())
                  .withPath(file.toUri().toString())
                  .withFormat(FileFormat.PARQUET)
                  .withFileSizeInBytes(0)
                  .withRecordCount(1)
                  .build());
        }
      }
      append.appendManifest(writer.toManifestFile());
    }
    append.commit();
    return table;
  }

  private static long size(Path folder, String nameContains) throws IOException {
    try (Stream<Path> paths = Files.list(folder)) {
      return paths
          .filter(
              p ->
                  p.getFileName().toString().contains(nameContains)
                      && !p.getFileName().toString().startsWith("."))
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .sum();
    }
  }
}
