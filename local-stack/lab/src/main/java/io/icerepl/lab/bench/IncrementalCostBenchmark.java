package io.icerepl.lab.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.RequestCountingStore;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * What one new source commit costs to replicate, on tables with short and long histories. The
 * history is synthetic (earlier snapshots share one manifest list, so building it is quick); each
 * measured commit is a real append by the Iceberg library. The floor is parsing and writing that
 * table's metadata JSON once, which every replica commit must do.
 */
public final class IncrementalCostBenchmark {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));

  private final HadoopTables tables = new HadoopTables(new Configuration());
  private final PrintWriter out;

  public IncrementalCostBenchmark(PrintWriter out) {
    this.out = out;
  }

  /** One measured history size. */
  public record Row(
      int history,
      double filesRead,
      double filesCopied,
      double filesRewritten,
      double commitMs,
      double floorMs) {}

  public List<Row> run(Path workDir, List<Integer> histories, int commits) throws IOException {
    List<Row> rows = new ArrayList<>();
    for (int history : histories) {
      rows.add(measure(workDir.resolve("history-" + history), history, commits));
    }
    out.printf(
        "%-10s %12s %14s %16s %12s %18s %8s%n",
        "history",
        "files read",
        "files copied",
        "files rewritten",
        "commit ms",
        "floor: json ms",
        "ratio");
    for (Row row : rows) {
      out.printf(
          "%-10d %12.0f %14.0f %16.0f %12.1f %18.1f %8.2f%n",
          row.history,
          row.filesRead,
          row.filesCopied,
          row.filesRewritten,
          row.commitMs,
          row.floorMs,
          row.commitMs / row.floorMs);
    }
    Row first = rows.get(0);
    Row last = rows.get(rows.size() - 1);
    out.printf(
        "commit time %d vs %d prior snapshots: %.2fx; floor %.2fx%n",
        last.history, first.history, last.commitMs / first.commitMs, last.floorMs / first.floorMs);
    out.flush();
    return rows;
  }

  private Row measure(Path dir, int history, int commits) throws IOException {
    String sourceLocation = dir.resolve("source").toUri().toString();
    String replicaLocation = dir.resolve("replica").toUri().toString();
    Table table =
        tables.create(
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"),
            sourceLocation);
    table.newFastAppend().appendFile(writeData(table, 0)).commit();
    synthesizeHistory(dir.resolve("source/metadata"), history);

    CountingStore store = new CountingStore(new LocalObjectStore());
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      TableReplicator replicator =
          TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
              .clock(Clock.systemUTC())
              .build();
      replicator.replicate(sourceLocation, replicaLocation, Optional.empty());

      List<Double> millis = new ArrayList<>();
      List<Double> floors = new ArrayList<>();
      long read = 0;
      long copied = 0;
      long rewritten = 0;
      table = tables.load(sourceLocation);
      for (int i = 0; i < commits; i++) {
        table.newFastAppend().appendFile(writeData(table, i + 1)).commit();
        store.reset();
        long start = System.nanoTime();
        ReplicationSummary summary =
            replicator.replicate(sourceLocation, replicaLocation, Optional.empty());
        millis.add((System.nanoTime() - start) / 1e6);
        if (summary.versionsApplied() != 1) {
          throw new IllegalStateException(
              "expected one version per commit, applied " + summary.versionsApplied());
        }
        read += store.opens.get();
        copied += summary.filesCopied();
        rewritten += summary.filesRewritten();
        floors.add(jsonFloorMillis(table.location()));
      }
      out.printf("history %d: %d commits replicated, commit ms %s%n", history, commits, millis);
      return new Row(
          history,
          (double) read / commits,
          (double) copied / commits,
          (double) rewritten / commits,
          median(millis),
          median(floors));
    } finally {
      executor.shutdownNow();
    }
  }

  /** Requests one replicated commit made on one target store, averaged over the commits. */
  public record StoreRow(
      String target,
      double lists,
      double gets,
      double heads,
      double puts,
      double copies,
      double deletes,
      double leases,
      double commitMs) {}

  /**
   * One local source table backfilled into every target, then {@code commits} more commits, each
   * replicated to every target in turn; the requests each replicated commit made on the target
   * store, by kind. Copies are the data files copied (a PUT each, among the PUTs).
   */
  public List<StoreRow> runAcrossStores(Path workDir, List<BenchTarget.Kind> kinds, int commits)
      throws Exception {
    out.printf(
        "incremental-cost across stores: %d commits replicated from local files to %s%n",
        commits, kinds.stream().map(BenchTarget.Kind::label).toList());
    out.flush();
    String sourceLocation = workDir.resolve("source").toUri().toString();
    Table table =
        tables.create(
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"),
            sourceLocation);
    for (int i = 0; i < 3; i++) {
      table.newFastAppend().appendFile(writeData(table, i)).commit();
    }
    List<BenchTarget> targets = new ArrayList<>();
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      List<RequestCountingStore> stores = new ArrayList<>();
      List<TableReplicator> replicators = new ArrayList<>();
      List<String> replicas = new ArrayList<>();
      LocalObjectStore source = new LocalObjectStore();
      for (BenchTarget.Kind kind : kinds) {
        BenchTarget target = BenchTarget.start(kind, workDir.resolve("target-" + kind.label()));
        targets.add(target);
        RequestCountingStore store = new RequestCountingStore(target.store());
        stores.add(store);
        replicators.add(
            TableReplicator.builder(source, store, executor, ReplicationOptions.defaults())
                .clock(Clock.systemUTC())
                .build());
        String replica = target.location("replica") + "/ns/events";
        replicas.add(replica);
        ReplicationSummary backfill =
            replicators
                .get(replicators.size() - 1)
                .replicate(sourceLocation, replica, Optional.empty());
        out.printf(
            "  %-6s backfilled to %s: %d files copied, %d rewritten%n",
            kind.label(), replica, backfill.filesCopied(), backfill.filesRewritten());
      }
      out.flush();

      int n = kinds.size();
      long[][] counts = new long[n][RequestCountingStore.Kind.values().length];
      long[] copies = new long[n];
      List<List<Double>> millis = new ArrayList<>();
      for (int t = 0; t < n; t++) {
        millis.add(new ArrayList<>());
      }
      for (int i = 0; i < commits; i++) {
        table = tables.load(sourceLocation);
        table.newFastAppend().appendFile(writeData(table, 100 + i)).commit();
        for (int t = 0; t < n; t++) {
          RequestCountingStore store = stores.get(t);
          store.reset();
          long start = System.nanoTime();
          ReplicationSummary summary =
              replicators.get(t).replicate(sourceLocation, replicas.get(t), Optional.empty());
          millis.get(t).add((System.nanoTime() - start) / 1e6);
          if (summary.versionsApplied() != 1) {
            throw new IllegalStateException(
                kinds.get(t).label()
                    + ": expected one version per commit, applied "
                    + summary.versionsApplied());
          }
          for (RequestCountingStore.Kind kind : RequestCountingStore.Kind.values()) {
            counts[t][kind.ordinal()] += store.count(kind);
          }
          copies[t] += summary.filesCopied();
        }
      }
      List<StoreRow> rows = new ArrayList<>();
      for (int t = 0; t < n; t++) {
        double c = commits;
        rows.add(
            new StoreRow(
                kinds.get(t).label(),
                counts[t][RequestCountingStore.Kind.LIST.ordinal()] / c,
                counts[t][RequestCountingStore.Kind.GET.ordinal()] / c,
                counts[t][RequestCountingStore.Kind.HEAD.ordinal()] / c,
                counts[t][RequestCountingStore.Kind.PUT.ordinal()] / c,
                copies[t] / c,
                counts[t][RequestCountingStore.Kind.DELETE.ordinal()] / c,
                counts[t][RequestCountingStore.Kind.LEASE.ordinal()] / c,
                median(millis.get(t))));
      }
      out.printf("requests on the target per replicated commit (mean of %d commits)%n", commits);
      out.printf(
          "%-8s %6s %6s %6s %6s %14s %7s %6s %14s%n",
          "target",
          "LIST",
          "GET",
          "HEAD",
          "PUT",
          "of which copy",
          "DELETE",
          "lease",
          "commit ms p50");
      for (StoreRow row : rows) {
        out.printf(
            "%-8s %6.1f %6.1f %6.1f %6.1f %14.1f %7.1f %6.1f %14.1f%n",
            row.target,
            row.lists,
            row.gets,
            row.heads,
            row.puts,
            row.copies,
            row.deletes,
            row.leases,
            row.commitMs);
      }
      out.flush();
      return rows;
    } finally {
      executor.shutdownNow();
      for (BenchTarget target : targets) {
        target.close();
      }
    }
  }

  /** Parses and writes the current source metadata once: the least any replica commit does. */
  private double jsonFloorMillis(String location) throws IOException {
    Path metadata = Path.of(java.net.URI.create(location)).resolve("metadata");
    String hint = Files.readString(metadata.resolve("version-hint.text")).trim();
    byte[] bytes = Files.readAllBytes(metadata.resolve("v" + hint + ".metadata.json"));
    long start = System.nanoTime();
    TableMetadata parsed = TableMetadataParser.read(bytes, "floor");
    byte[] written = TableMetadataParser.toJson(parsed);
    double millis = (System.nanoTime() - start) / 1e6;
    if (written.length == 0) {
      throw new IllegalStateException("empty metadata");
    }
    return millis;
  }

  /**
   * Adds {@code history} earlier snapshots to the table's current metadata as a new version. They
   * share the current snapshot's manifest list, so the backfill stays cheap; readers and the
   * replicator treat them as any other snapshots.
   */
  private static void synthesizeHistory(Path metadataDir, int history) throws IOException {
    String hint = Files.readString(metadataDir.resolve("version-hint.text")).trim();
    int version = Integer.parseInt(hint);
    ObjectNode json =
        (ObjectNode)
            TableMetadataParser.mapper()
                .readTree(metadataDir.resolve("v" + version + ".metadata.json").toFile());
    ObjectNode current = (ObjectNode) json.withArray("snapshots").get(0);
    long firstTimestamp = current.get("timestamp-ms").asLong() - history - 1;
    ArrayNode snapshots = TableMetadataParser.mapper().createArrayNode();
    ArrayNode log = TableMetadataParser.mapper().createArrayNode();
    for (int i = 0; i < history; i++) {
      ObjectNode snapshot = current.deepCopy();
      long id = 1_000_000L + i;
      snapshot.put("snapshot-id", id);
      if (i > 0) {
        snapshot.put("parent-snapshot-id", id - 1);
      } else {
        snapshot.remove("parent-snapshot-id");
      }
      snapshot.put("timestamp-ms", firstTimestamp + i);
      snapshots.add(snapshot);
      log.addObject().put("timestamp-ms", firstTimestamp + i).put("snapshot-id", id);
    }
    snapshots.add(current);
    log.addAll((ArrayNode) json.withArray("snapshot-log"));
    json.set("snapshots", snapshots);
    json.set("snapshot-log", log);
    json.withArray("metadata-log")
        .addObject()
        .put("timestamp-ms", json.get("last-updated-ms").asLong())
        .put(
            "metadata-file",
            metadataDir.resolve("v" + version + ".metadata.json").toUri().toString());
    Files.write(
        metadataDir.resolve("v" + (version + 1) + ".metadata.json"),
        TableMetadataParser.mapper().writeValueAsBytes(json));
    Files.writeString(metadataDir.resolve("version-hint.text"), Integer.toString(version + 1));
    // Hadoop's local file system checks .crc sidecars: drop the stale one of the rewritten hint
    Files.deleteIfExists(metadataDir.resolve(".version-hint.text.crc"));
  }

  private static DataFile writeData(Table table, int seed) {
    GenericRecord record = GenericRecord.create(table.schema());
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(record.copy(Map.of("id", (long) seed * 1000 + i, "payload", "row-" + i)));
    }
    return TableWrites.writeData(table, null, rows);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
