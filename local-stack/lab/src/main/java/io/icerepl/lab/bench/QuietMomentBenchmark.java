package io.icerepl.lab.bench;

import io.icerepl.merge.group.QuietMoment;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The transaction-window search of a group's cut ({@link QuietMoment}) where it costs most: two
 * tables committing in turn every 0.5 s with a 1 s window, so no moment is quiet and the search
 * walks the whole history back. Each size is timed against the search as it was before it became
 * one pass (every step rescanned every table's history), in the same run, on the same metadata;
 * both must find the same moment.
 */
public final class QuietMomentBenchmark {
  private static final long COMMIT_EVERY_MS = 500;
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final long START_MS = 1_790_000_000_000L;

  private final PrintWriter out;

  public QuietMomentBenchmark(PrintWriter out) {
    this.out = out;
  }

  public void run(List<Integer> sizes, int rounds) {
    out.printf(
        "transaction-window search, 2 tables, a commit every %d ms, window %s, %d rounds%n",
        COMMIT_EVERY_MS, WINDOW, rounds);
    out.println("snapshots   one pass ms (median, min-max)   before ms (median, min-max)");
    for (int size : sizes) {
      List<TableMetadata> tables = tables(size);
      long at = START_MS + size * COMMIT_EVERY_MS + 100;
      for (int warmUp = 0; warmUp < 20; warmUp++) {
        QuietMoment.before(at, 1, WINDOW, tables); // compiled before it is timed
      }
      List<Double> now = new ArrayList<>();
      List<Double> before = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        long start = System.nanoTime();
        long found = QuietMoment.before(at, 1, WINDOW, tables);
        now.add((System.nanoTime() - start) / 1e6);
        start = System.nanoTime();
        long baseline = rescanning(at, 1, WINDOW, tables);
        before.add((System.nanoTime() - start) / 1e6);
        if (found != baseline) {
          throw new IllegalStateException(
              "the two searches disagree at " + size + ": " + found + " and " + baseline);
        }
      }
      out.printf(
          "%9d   %9.2f (%.2f-%.2f)   %11.1f (%.1f-%.1f)%n",
          size, median(now), min(now), max(now), median(before), min(before), max(before));
      out.flush();
    }
  }

  /** Two tables sharing {@code snapshots} commits in turn, each in its {@code snapshot-log}. */
  static List<TableMetadata> tables(int snapshots) {
    List<TableMetadata> tables = new ArrayList<>();
    for (int table = 0; table < 2; table++) {
      StringBuilder list = new StringBuilder();
      StringBuilder log = new StringBuilder();
      long parent = -1;
      for (int i = table; i < snapshots; i += 2) {
        long id = i + 1;
        long at = START_MS + i * COMMIT_EVERY_MS;
        if (list.length() > 0) {
          list.append(',');
          log.append(',');
        }
        list.append("{\"snapshot-id\":")
            .append(id)
            .append(parent < 0 ? "" : ",\"parent-snapshot-id\":" + parent)
            .append(",\"timestamp-ms\":")
            .append(at)
            .append(",\"sequence-number\":")
            .append(i + 1)
            .append(",\"summary\":{\"operation\":\"append\"},\"manifest-list\":\"s3://b/t")
            .append(table)
            .append("/metadata/snap-")
            .append(id)
            .append(".avro\"}");
        log.append("{\"snapshot-id\":")
            .append(id)
            .append(",\"timestamp-ms\":")
            .append(at)
            .append('}');
        parent = id;
      }
      String json =
          "{\"format-version\":2,\"table-uuid\":\"u"
              + table
              + "\",\"location\":\"s3://b/t"
              + table
              + "\",\"last-sequence-number\":"
              + snapshots
              + ",\"last-updated-ms\":1,\"last-column-id\":1,\"current-schema-id\":0,"
              + "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}],"
              + "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
              + "\"last-partition-id\":999,\"default-sort-order-id\":0,"
              + "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
              + (parent < 0 ? "" : "\"current-snapshot-id\":" + parent + ",")
              + "\"snapshots\":["
              + list
              + "],\"snapshot-log\":["
              + log
              + "]}";
      tables.add(
          TableMetadataParser.read(json.getBytes(StandardCharsets.UTF_8), "t" + table + ".json"));
    }
    return tables;
  }

  /** The search as it was: each step rescans every table's history for the window's newest. */
  static long rescanning(
      long atMs, long granularityMs, Duration window, List<TableMetadata> tables) {
    long moment = Math.floorDiv(atMs, granularityMs) * granularityMs;
    long windowMs = window.toMillis();
    if (windowMs <= 0) {
      return moment;
    }
    while (true) {
      long latest = Long.MIN_VALUE;
      for (TableMetadata table : tables) {
        for (TableMetadata.SnapshotLogEntry entry : table.snapshotLog()) {
          latest = latestIn(entry.timestampMs(), moment, windowMs, latest);
        }
        for (Snapshot snapshot : table.snapshots()) {
          latest = latestIn(snapshot.timestampMs(), moment, windowMs, latest);
        }
      }
      if (latest == Long.MIN_VALUE) {
        return moment;
      }
      moment = Math.floorDiv(latest - 1, granularityMs) * granularityMs;
    }
  }

  private static long latestIn(long at, long moment, long windowMs, long latest) {
    return at > moment - windowMs && at <= moment && at > latest ? at : latest;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
  }

  private static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
  }
}
