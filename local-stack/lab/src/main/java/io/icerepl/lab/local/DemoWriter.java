package io.icerepl.lab.local;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Keeps committing to a demo source table in the embedded S3 — appends, position deletes, a schema
 * change, a source-side expiry — and publishes the S3 event of each new metadata file, as S3 would,
 * so the service replicates it live.
 */
public final class DemoWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DemoWriter.class);
  private static final String NAMESPACE = "demo";
  private static final String TABLE = "orders";
  private static final List<String> CATEGORIES = List.of("books", "games", "music");

  private final S3Warehouse warehouse;
  private final SqsClient sqs;
  private final String queueUrl;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "demo-writer");
            thread.setDaemon(true);
            return thread;
          });
  private Table table;
  private long step;
  private long nextId = 1;

  public DemoWriter(URI s3Endpoint, SqsClient sqs, String queueUrl) {
    this.warehouse =
        new S3Warehouse(
            "s3://" + EmbeddedAws.SOURCE_BUCKET + "/warehouse",
            s3Endpoint,
            EmbeddedS3.REGION.id(),
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);
    this.sqs = sqs;
    this.queueUrl = queueUrl;
  }

  /** Commits once every {@code interval}. */
  public void start(Duration interval) {
    scheduler.scheduleWithFixedDelay(
        this::commitSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void commitSafely() {
    try {
      commit();
    } catch (RuntimeException e) {
      LOG.warn("demo writer: commit {} failed: {}", step, e.toString());
    }
  }

  /** One commit of the demo's cycle; public so tests can drive it step by step. */
  public synchronized void commit() {
    if (table == null) {
      table = warehouse.createSample(NAMESPACE, TABLE);
      LOG.info("demo writer: created {}", table.location());
      nameHead();
      // the first rows at once, so the live demo shows a data snapshot within seconds
      step++;
      LOG.info("demo writer: commit {} ({})", step, append());
    } else {
      String what =
          switch ((int) (step % 8)) {
            case 3 -> deleteOneRow();
            case 5 -> step < 8 ? addColumn() : append();
            case 7 -> expireOnTheSource();
            default -> append();
          };
      LOG.info("demo writer: commit {} ({})", step, what);
    }
    step++;
    nameHead();
    publish(S3Warehouse.metadataFile(table));
  }

  /**
   * Names the new head in the table's {@code version-hint.text}, as a writer without a catalog can:
   * the replicator then takes it at once, where an unnamed {@code <N>-<uuid>.metadata.json} waits
   * out the settle time (a writer that lost its catalog commit leaves such files).
   */
  private void nameHead() {
    String file = S3Warehouse.metadataFile(table);
    String hint = file.substring(0, file.lastIndexOf('/')) + "/version-hint.text";
    byte[] name =
        file.substring(file.lastIndexOf('/') + 1).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (java.io.OutputStream out = table.io().newOutputFile(hint).createOrOverwrite()) {
      out.write(name);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot write " + hint, e);
    }
  }

  private String append() {
    String category = CATEGORIES.get((int) (step % CATEGORIES.size()));
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      rows.add(record.copy(Map.of("id", nextId, "category", category, "amount", nextId * 2.5)));
      nextId++;
    }
    table.newAppend().appendFile(TableWrites.writeData(table, partition, rows)).commit();
    return "append to " + category;
  }

  private String deleteOneRow() {
    DataFile file = null;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        file = task.file();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (file == null) {
      return append();
    }
    table.newRowDelta().addDeletes(TableWrites.writePositionDeletes(table, file, 0)).commit();
    return "position delete";
  }

  private String addColumn() {
    table.updateSchema().addColumn("note", Types.StringType.get()).commit();
    return "schema change: add column note";
  }

  private String expireOnTheSource() {
    // The source keeps a short history; the replica keeps every snapshot it replicated.
    table.expireSnapshots().retainLast(3).expireOlderThan(System.currentTimeMillis()).commit();
    return "source-side expiry, retain last 3";
  }

  private void publish(String metadataFile) {
    String key = metadataFile.substring(("s3://" + EmbeddedAws.SOURCE_BUCKET + "/").length());
    sqs.sendMessage(
        b ->
            b.queueUrl(queueUrl)
                .messageBody(S3EventMessages.objectCreated(EmbeddedAws.SOURCE_BUCKET, key, 0)));
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    warehouse.close();
  }
}
