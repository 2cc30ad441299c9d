package io.icerepl.lab.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.model.MetadataHeapBound;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * A backfill of a table whose metadata file is huge: a real Iceberg table whose current metadata is
 * rewritten, streamed, with a long synthetic history in front of its real snapshot — hundreds of
 * thousands of snapshots (copies of the real one, sharing its manifest list), a snapshot-log entry
 * for each and a long metadata-log of files already removed. Its heap and time are printed against
 * a plain Jackson {@code readTree} of the same file, the least any reader holding the whole
 * document does.
 */
public final class BigMetadataBenchmark {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));
  private static final double MIB = 1024 * 1024;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final PrintWriter out;

  public BigMetadataBenchmark(PrintWriter out) {
    this.out = out;
  }

  /** What one run measured. */
  public record Result(
      long fileBytes,
      int snapshots,
      int metadataLogEntries,
      long replicatorPeakAfterGc,
      double replicatorSeconds,
      ReplicationSummary summary,
      String sourceLocation,
      String replicaLocation) {}

  public Result run(Path workDir, long sizeBytes) throws Exception {
    long maxHeap = Runtime.getRuntime().maxMemory();
    String source = workDir.resolve("source").toUri().toString();
    String replica = workDir.resolve("replica").toUri().toString();
    long start = System.nanoTime();
    Table table =
        new HadoopTables(new Configuration())
            .create(
                SCHEMA,
                PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"),
                source);
    table.newFastAppend().appendFile(TableWrites.writeData(table, null, rows(table))).commit();
    Synthetic synthetic = writeHistory(workDir.resolve("source/metadata"), sizeBytes);
    out.printf(
        "big-metadata: source metadata %s, %.1f MiB: %d snapshots, %d metadata-log entries (written"
            + " in %.1f s); max heap (-Xmx) %.0f MiB%n",
        synthetic.file().getFileName(),
        synthetic.bytes() / MIB,
        synthetic.snapshots(),
        synthetic.metadataLogEntries(),
        (System.nanoTime() - start) / 1e9,
        maxHeap / MIB);
    out.flush();

    // the replicator first: a baseline that does not fit in the heap must not disturb it
    ReplicationSummary summary;
    long replicatorPeak;
    long replicatorAfterGc;
    double replicatorSeconds;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (HeapPeak peak = HeapPeak.start()) {
      ReplicationOptions defaults = ReplicationOptions.defaults();
      LocalObjectStore store = new LocalObjectStore();
      TableReplicator replicator =
          TableReplicator.builder(
                  store,
                  store,
                  pool,
                  new ReplicationOptions(
                      defaults.extraPrefixes(), false, 2 * synthetic.bytes() + (1 << 20), 4))
              .clock(Clock.systemUTC())
              .build();
      long replicateStart = System.nanoTime();
      summary = replicator.replicate(source, replica, Optional.empty());
      replicatorSeconds = (System.nanoTime() - replicateStart) / 1e9;
      replicatorPeak = peak.peakUsed();
      replicatorAfterGc = peak.peakAfterGc();
    } finally {
      pool.shutdownNow();
    }
    out.printf(
        "replicated in %.1f s: %d snapshots, %d files copied, %d rewritten%n",
        replicatorSeconds,
        summary.snapshotsAdded(),
        summary.filesCopied(),
        summary.filesRewritten());
    out.flush();

    String baselinePeak;
    String baselineAfterGc;
    String baselineTime;
    try (HeapPeak peak = HeapPeak.start()) {
      long baselineStart = System.nanoTime();
      JsonNode tree = readTree(synthetic.file());
      baselineTime = String.format("%.1f", (System.nanoTime() - baselineStart) / 1e9);
      baselinePeak = String.format("%.1f", peak.peakUsed() / MIB);
      baselineAfterGc = afterGc(peak.peakAfterGc());
      if (tree.get("snapshots").size() != synthetic.snapshots()) {
        throw new IllegalStateException("read " + tree.get("snapshots").size() + " snapshots");
      }
    } catch (OutOfMemoryError e) {
      // the tree of every node is what does not fit: that is the figure
      baselineTime = "-";
      baselinePeak = String.format("> %.0f (out of memory)", maxHeap / MIB);
      baselineAfterGc = "-";
    }

    out.printf("%-42s %10s %20s %16s%n", "", "time s", "peak used MiB", "peak after GC");
    out.printf(
        "%-42s %10s %20s %16s%n",
        "baseline: Jackson readTree of the file", baselineTime, baselinePeak, baselineAfterGc);
    out.printf(
        "%-42s %10.1f %20.1f %16s%n",
        "replicator: backfill the table",
        replicatorSeconds,
        replicatorPeak / MIB,
        afterGc(replicatorAfterGc));
    out.printf(
        "heap limit 3 x file + 32 MiB = %d MiB; replicator peak after GC / file size: %.2f;"
            + " completed under -Xmx %.0f MiB%n",
        MetadataHeapBound.heapMibFor(synthetic.bytes()),
        replicatorAfterGc / (double) synthetic.bytes(),
        maxHeap / MIB);
    out.flush();
    return new Result(
        synthetic.bytes(),
        synthetic.snapshots(),
        synthetic.metadataLogEntries(),
        replicatorAfterGc,
        replicatorSeconds,
        summary,
        source,
        replica);
  }

  private static JsonNode readTree(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return MAPPER.readTree(in);
    }
  }

  private static String afterGc(long bytes) {
    return bytes == 0 ? "-" : String.format("%.1f", bytes / MIB);
  }

  private record Synthetic(Path file, long bytes, int snapshots, int metadataLogEntries) {}

  /**
   * Writes the table's next metadata version with a synthetic history of about {@code sizeBytes},
   * streamed: the history is never held in memory. Snapshots take most of it, as in real tables.
   */
  private static Synthetic writeHistory(Path metadataDir, long sizeBytes) throws IOException {
    int version =
        Integer.parseInt(Files.readString(metadataDir.resolve("version-hint.text")).trim());
    ObjectNode json =
        (ObjectNode)
            MAPPER.readTree(metadataDir.resolve("v" + version + ".metadata.json").toFile());
    ObjectNode real = (ObjectNode) json.get("snapshots").get(0);
    long realTimestamp = real.get("timestamp-ms").asLong();
    ObjectNode template = real.deepCopy();
    // a summary as long as engines write for a partitioned append
    ObjectNode summary = (ObjectNode) template.get("summary");
    for (String key :
        List.of(
            "added-data-files",
            "added-records",
            "added-files-size",
            "changed-partition-count",
            "total-records",
            "total-files-size",
            "total-data-files",
            "total-delete-files",
            "total-position-deletes",
            "total-equality-deletes")) {
      summary.put(key, "1234567");
    }
    summary.put("spark.app.id", "local-1764547200000-a1b2c3d4e5f6");
    summary.put("engine-name", "spark");
    summary.put("engine-version", "3.5.4");
    summary.put("iceberg-version", "Apache Iceberg 1.10.0 (commit 0123456789abcdef)");
    template.remove(List.of("snapshot-id", "parent-snapshot-id", "timestamp-ms"));
    // the fields that differ are spelled in front of the template's others, written once as text
    String rest = MAPPER.writeValueAsString(template).substring(1);
    long snapshotBytes = rest.length() + 120L; // its ids and time, and its log entry
    int snapshots = (int) Math.max(10, sizeBytes * 0.95 / snapshotBytes);
    String oldFile = metadataDir.resolve("00000-old.metadata.json").toUri().toString();
    int metadataLogEntries = (int) Math.max(10, sizeBytes * 0.01 / (oldFile.length() + 50));
    long firstTimestamp = realTimestamp - snapshots - 1;

    Path file = metadataDir.resolve("v" + (version + 1) + ".metadata.json");
    try (OutputStream bytes = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20);
        JsonGenerator out = MAPPER.getFactory().createGenerator(bytes)) {
      out.writeStartObject();
      var fields = json.fields();
      while (fields.hasNext()) {
        var field = fields.next();
        out.writeFieldName(field.getKey());
        switch (field.getKey()) {
          case "snapshots" -> {
            out.writeStartArray();
            for (int i = 0; i < snapshots; i++) {
              long id = 1_000_000L + i;
              out.writeRawValue(
                  "{\"snapshot-id\":"
                      + id
                      + (i == 0 ? "" : ",\"parent-snapshot-id\":" + (id - 1))
                      + ",\"timestamp-ms\":"
                      + (firstTimestamp + i)
                      + ","
                      + rest);
            }
            out.writeTree(real);
            out.writeEndArray();
          }
          case "snapshot-log" -> {
            out.writeStartArray();
            for (int i = 0; i < snapshots; i++) {
              out.writeStartObject();
              out.writeNumberField("timestamp-ms", firstTimestamp + i);
              out.writeNumberField("snapshot-id", 1_000_000L + i);
              out.writeEndObject();
            }
            for (JsonNode entry : field.getValue()) {
              out.writeTree(entry);
            }
            out.writeEndArray();
          }
          case "metadata-log" -> {
            out.writeStartArray();
            for (int i = 0; i < metadataLogEntries; i++) {
              out.writeStartObject();
              out.writeNumberField("timestamp-ms", firstTimestamp + i);
              out.writeStringField(
                  "metadata-file",
                  metadataDir
                      .resolve(String.format("%05d-old.metadata.json", i))
                      .toUri()
                      .toString());
              out.writeEndObject();
            }
            for (JsonNode entry : field.getValue()) {
              out.writeTree(entry);
            }
            out.writeEndArray();
          }
          default -> out.writeTree(field.getValue());
        }
      }
      out.writeEndObject();
    }
    Files.writeString(metadataDir.resolve("version-hint.text"), Integer.toString(version + 1));
    // Hadoop's local file system checks .crc sidecars: drop the stale one of the rewritten hint
    Files.deleteIfExists(metadataDir.resolve(".version-hint.text.crc"));
    return new Synthetic(file, Files.size(file), snapshots + 1, metadataLogEntries);
  }

  private static List<Record> rows(Table table) {
    GenericRecord record = GenericRecord.create(table.schema());
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(record.copy(Map.of("id", (long) i, "payload", "row-" + i)));
    }
    return rows;
  }
}
