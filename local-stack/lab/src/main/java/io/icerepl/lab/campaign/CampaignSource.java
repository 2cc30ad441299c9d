package io.icerepl.lab.campaign;

import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The source table of a campaign, written with the Iceberg library as an engine would (S3FileIO on
 * the embedded S3, or HadoopTables on local files): appends, position deletes, one schema change,
 * tags, a branch and source-side expiries (files kept, so every version stays replicable). After
 * each commit it records the rows of the new snapshot, read back from the source, and hands the new
 * metadata file to a publisher (the S3 event).
 */
final class CampaignSource implements AutoCloseable {
  static final String NAMESPACE = "ns";
  static final String TABLE = "events";
  private static final List<String> CATEGORIES = List.of("books", "games", "music", "films");

  private final Supplier<Table> creator;
  private final AutoCloseable resources;
  private final Consumer<String> publisher;
  private final Random random;
  private final Map<Long, List<String>> rows = new LinkedHashMap<>();
  private final List<String> metadataFiles = new ArrayList<>();
  private final Map<String, Integer> operations = new LinkedHashMap<>();
  private Table table;
  private long step;
  private long nextId = 1;
  private boolean columnAdded;

  CampaignSource(
      String bucket,
      URI endpoint,
      String region,
      String accessKey,
      String secretKey,
      Consumer<String> publisher,
      long seed) {
    S3Warehouse warehouse =
        new S3Warehouse("s3://" + bucket + "/warehouse", endpoint, region, accessKey, secretKey);
    this.creator = () -> warehouse.createSample(NAMESPACE, TABLE);
    this.resources = warehouse;
    this.publisher = publisher;
    this.random = new Random(seed);
  }

  private CampaignSource(Supplier<Table> creator, Table table, long firstId, long seed) {
    this.creator = creator;
    this.resources = () -> {};
    this.publisher = file -> {};
    this.random = new Random(seed);
    this.table = table;
    this.nextId = firstId;
    if (table != null) {
      step = 1;
      columnAdded = table.schema().findField("note") != null;
    }
  }

  /**
   * A source on local files written through {@link HadoopTables} (version hint, {@code v<N>}
   * files), created at {@code location} by the first commit, with no events to publish.
   */
  static CampaignSource hadoopTable(String location, long seed) {
    return new CampaignSource(() -> createSample(location), null, 1, seed);
  }

  /**
   * A writer on an existing Hadoop table (e.g. a promoted replica), writing ids from {@code
   * firstId} on so its rows never match the other writer's.
   */
  static CampaignSource existingHadoopTable(String location, long firstId, long seed) {
    return new CampaignSource(
        () -> {
          throw new IllegalStateException("Cannot create " + location + ": it exists");
        },
        new HadoopTables(new Configuration()).load(location),
        firstId,
        seed);
  }

  /** The sample table {@link S3Warehouse#createSample} creates, on local files. */
  private static Table createSample(String location) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "category", Types.StringType.get()),
            Types.NestedField.optional(3, "amount", Types.DoubleType.get()));
    return new HadoopTables(new Configuration())
        .create(
            schema,
            PartitionSpec.builderFor(schema).identity("category").build(),
            Map.of(TableProperties.FORMAT_VERSION, "2"),
            location);
  }

  /** One commit; the first creates the table. */
  synchronized void commit() {
    String what;
    if (table == null) {
      table = creator.get();
      what = "create";
    } else {
      int phase = (int) (step % 10);
      if (phase == 6 && !columnAdded) {
        table.updateSchema().addColumn("note", Types.StringType.get()).commit();
        columnAdded = true;
        what = "schema change";
      } else if (phase == 3 || phase == 8) {
        what = deleteOneRow();
      } else if (phase == 5 && table.currentSnapshot() != null) {
        // refs move too: a tag per round and one branch that follows main
        long current = table.currentSnapshot().snapshotId();
        table.manageSnapshots().createTag("round-" + (step / 10), current).commit();
        what = "tag";
      } else if (phase == 7 && table.currentSnapshot() != null) {
        long current = table.currentSnapshot().snapshotId();
        if (table.refs().containsKey("audit")) {
          table.manageSnapshots().replaceBranch("audit", current).commit();
        } else {
          table.manageSnapshots().createBranch("audit", current).commit();
        }
        what = "branch";
      } else if (phase == 9) {
        // the source keeps a short history; the replica keeps every snapshot it replicated
        table
            .expireSnapshots()
            .retainLast(3)
            .expireOlderThan(System.currentTimeMillis())
            .cleanExpiredFiles(false)
            .commit();
        what = "source expiry";
      } else {
        what = append();
      }
    }
    step++;
    recordCommit(what);
  }

  /**
   * One commit that writes rows: an append, or a position delete every other call. Each makes a
   * snapshot, where {@link #commit()}'s cycle also moves refs and changes the schema.
   */
  synchronized void commitRows() {
    if (table == null) {
      throw new IllegalStateException("Cannot write rows: the table is not created yet");
    }
    step++;
    recordCommit(step % 2 == 0 ? deleteOneRow() : append());
  }

  private void recordCommit(String what) {
    operations.merge(what, 1, Integer::sum);
    Snapshot current = table.currentSnapshot();
    if (current != null && !rows.containsKey(current.snapshotId())) {
      rows.put(current.snapshotId(), rows(table, current.snapshotId()));
    }
    String metadataFile = S3Warehouse.metadataFile(table);
    metadataFiles.add(metadataFile);
    publisher.accept(metadataFile);
  }

  private String append() {
    String category = CATEGORIES.get(random.nextInt(CATEGORIES.size()));
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    int count = 1 + random.nextInt(5);
    for (int i = 0; i < count; i++) {
      Map<String, Object> values =
          new HashMap<>(Map.of("id", nextId, "category", category, "amount", nextId * 2.5));
      if (columnAdded) {
        values.put("note", "n" + nextId);
      }
      records.add(record.copy(values));
      nextId++;
    }
    table.newAppend().appendFile(TableWrites.writeData(table, partition, records)).commit();
    return "append";
  }

  private String deleteOneRow() {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (files.isEmpty()) {
      return append();
    }
    DataFile file = files.get(random.nextInt(files.size()));
    long position = random.nextInt((int) Math.max(1, file.recordCount()));
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(table, file, position))
        .commit();
    return "position delete";
  }

  /** Rows a table reads at a snapshot, sorted, as strings. */
  static List<String> rows(Table table, long snapshotId) {
    List<String> result = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> result.add(r.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    result.sort(null);
    return result;
  }

  /** Rows recorded at commit time, by snapshot id. */
  synchronized Map<Long, List<String>> recordedRows() {
    return new LinkedHashMap<>(rows);
  }

  /** Every metadata file committed, in order. */
  synchronized List<String> metadataFiles() {
    return new ArrayList<>(metadataFiles);
  }

  synchronized Map<String, Integer> operations() {
    return new LinkedHashMap<>(operations);
  }

  /** The refs of the head, by name: the snapshot each points at. */
  synchronized Map<String, Long> refs() {
    Map<String, Long> refs = new TreeMap<>();
    table.refs().forEach((name, ref) -> refs.put(name, ref.snapshotId()));
    return refs;
  }

  /** The head's current snapshot id, or null before the first append. */
  synchronized Long currentSnapshotId() {
    return table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
  }

  synchronized String head() {
    return metadataFiles.isEmpty() ? null : metadataFiles.get(metadataFiles.size() - 1);
  }

  synchronized int commits() {
    return metadataFiles.size();
  }

  @Override
  public void close() throws Exception {
    resources.close();
  }
}
