package io.icerepl.lab.local;

import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.merge.ReplicaProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Keeps committing to two demo source tables in the embedded S3 in lockstep, as a pipeline writing
 * a batch of orders and their items does: {@code demo/orders} (appends, position deletes, a schema
 * change, a source-side expiry) and {@code demo/order_items}, two items per order. Each batch
 * commits the orders, then their items; a delete removes an order's items, then the order, so the
 * sources never hold an item without its order. Every snapshot carries its batch number in the
 * summary property {@link #BATCH}. The S3 event of each new metadata file is published, as S3
 * would, so the service replicates it live.
 *
 * <p>The writer writes while the sources are the primaries: once both replicas are promoted (the
 * group's failover) or both sources are failed back (replicas of the promoted tables), it pauses,
 * as the writers of a lost region would; once both sources are promoted again (a switch-back) it
 * takes up their newest versions and goes on.
 */
public final class DemoWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DemoWriter.class);
  public static final String NAMESPACE = "demo";
  public static final String ORDERS = "orders";
  public static final String ITEMS = "order_items";

  /** The snapshot summary property naming the batch a commit belongs to. */
  public static final String BATCH = "demo.batch";

  public static final int ORDERS_PER_BATCH = 3;
  public static final int ITEMS_PER_ORDER = 2;
  private static final List<String> CATEGORIES = List.of("books", "games", "music");
  private static final List<String> PRODUCTS = List.of("pen", "lamp", "mug", "desk", "book");

  private final S3Warehouse warehouse;
  private final S3Warehouse replicas;
  private final SqsClient sqs;
  private final String queueUrl;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "demo-writer");
            thread.setDaemon(true);
            return thread;
          });
  private Table orders;
  private Table items;
  // the files of the latest append, whose first order (and its items) a delete removes
  private DataFile lastOrders;
  private DataFile lastItems;
  private long step;
  private long nextId = 1;
  private boolean paused;

  public DemoWriter(URI s3Endpoint, SqsClient sqs, String queueUrl) {
    this.warehouse = warehouse(s3Endpoint, EmbeddedAws.SOURCE_BUCKET);
    this.replicas = warehouse(s3Endpoint, EmbeddedAws.TARGET_BUCKET);
    this.sqs = sqs;
    this.queueUrl = queueUrl;
  }

  private static S3Warehouse warehouse(URI s3Endpoint, String bucket) {
    return new S3Warehouse(
        "s3://" + bucket + "/warehouse",
        s3Endpoint,
        EmbeddedS3.REGION.id(),
        EmbeddedS3.ACCESS_KEY,
        EmbeddedS3.SECRET_KEY);
  }

  /** Commits one batch every {@code interval}, the first at once. */
  public void start(Duration interval) {
    scheduler.scheduleWithFixedDelay(
        this::commitSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void commitSafely() {
    try {
      commit();
    } catch (RuntimeException e) {
      LOG.warn("demo writer: batch {} failed: {}", step, e.toString());
    }
  }

  /**
   * Creates both source tables, empty, unless they exist: before the service starts, which checks
   * that its groups' tables are there.
   */
  public synchronized void createTables() {
    if (orders == null) {
      orders = warehouse.createSample(NAMESPACE, ORDERS);
      items = createItems();
      LOG.info("demo writer: created {} and {}", orders.location(), items.location());
      nameHead(orders);
      nameHead(items);
    }
  }

  /** One batch of the demo's cycle; public so tests can drive it step by step. */
  public synchronized void commit() {
    createTables();
    if (step == 0) {
      // the first rows at once, so the live demo shows a data snapshot within seconds
      step++;
      LOG.info("demo writer: batch {} ({})", step, append());
    } else {
      if (!sourcesArePrimaries()) {
        return;
      }
      String what =
          switch ((int) (step % 8)) {
            case 3 -> deleteOneOrder();
            case 5 -> step < 8 ? addColumn() : append();
            case 7 -> expireOnTheSource();
            default -> append();
          };
      LOG.info("demo writer: batch {} ({})", step, what);
    }
    step++;
  }

  private Table createItems() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "order_id", Types.LongType.get()),
            Types.NestedField.required(2, "line", Types.IntegerType.get()),
            Types.NestedField.required(3, "product", Types.StringType.get()),
            Types.NestedField.required(4, "quantity", Types.IntegerType.get()));
    return warehouse.create(
        NAMESPACE,
        ITEMS,
        schema,
        PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  /**
   * Whether to write: not while every source has stopped being its group's primary (every replica
   * promoted past its source, or every source failed back), again once every source is a primary.
   * While only some are (a single table's failover drill, a group promoted table by table), the
   * writer goes on as it was: a writer left behind on one table's old primary writes on. Takes up a
   * version the replicator wrote on a source.
   */
  private boolean sourcesArePrimaries() {
    orders = followHead(orders, ORDERS);
    items = followHead(items, ITEMS);
    Optional<String> ordersNot = notPrimary(orders, ORDERS);
    Optional<String> itemsNot = notPrimary(items, ITEMS);
    boolean pause = ordersNot.isPresent() && itemsNot.isPresent();
    boolean resume = ordersNot.isEmpty() && itemsNot.isEmpty();
    if (pause && !paused) {
      paused = true;
      LOG.info("demo writer: paused, {} and {}", ordersNot.get(), itemsNot.get());
    } else if (resume && paused) {
      paused = false;
      LOG.info("demo writer: the sources are primaries again, writing");
    }
    return !paused;
  }

  private Table followHead(Table table, String name) {
    String location = warehouse.location(NAMESPACE, name);
    Optional<String> head = VersionHint.headFile(warehouse.io(), location);
    if (head.isEmpty() || head.get().equals(S3Warehouse.metadataFile(table))) {
      return table;
    }
    LOG.info("demo writer: {} is at {}, written by another writer", location, head.get());
    if (name.equals(ORDERS)) {
      lastOrders = null;
    } else {
      lastItems = null;
    }
    return warehouse.load(NAMESPACE, name, head.get());
  }

  private Optional<String> notPrimary(Table source, String name) {
    Map<String, String> properties = source.properties();
    if ("true".equals(properties.get(ReplicaProperties.READ_ONLY))) {
      return Optional.of(source.location() + " is a replica (failed back)");
    }
    String replicaLocation = replicas.location(NAMESPACE, name);
    Optional<Map<String, String>> replica =
        VersionHint.headFile(replicas.io(), replicaLocation)
            .map(file -> TableMetadataParser.read(replicas.io(), file).properties());
    if (replica.isPresent()
        && !"true".equals(replica.get().get(ReplicaProperties.READ_ONLY))
        && epoch(replica.get()) > epoch(properties)) {
      return Optional.of(replicaLocation + " is promoted (failover)");
    }
    return Optional.empty();
  }

  private static long epoch(Map<String, String> properties) {
    return Long.parseLong(properties.getOrDefault(ReplicaProperties.EPOCH, "0"));
  }

  /**
   * Names the new head in the table's {@code version-hint.text}, as a writer without a catalog can:
   * the replicator then takes it at once, where an unnamed {@code <N>-<uuid>.metadata.json} waits
   * out the settle time (a writer that lost its catalog commit leaves such files).
   */
  private static void nameHead(Table table) {
    String file = S3Warehouse.metadataFile(table);
    String hint = file.substring(0, file.lastIndexOf('/')) + "/version-hint.text";
    byte[] name = file.substring(file.lastIndexOf('/') + 1).getBytes(StandardCharsets.UTF_8);
    try (java.io.OutputStream out = table.io().newOutputFile(hint).createOrOverwrite()) {
      out.write(name);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + hint, e);
    }
  }

  /** The orders of one batch, then their items. */
  private String append() {
    String category = CATEGORIES.get((int) (step % CATEGORIES.size()));
    PartitionKey partition = new PartitionKey(orders.spec(), orders.schema());
    GenericRecord order = GenericRecord.create(orders.schema());
    partition.partition(order.copy(Map.of("id", 0L, "category", category)));
    GenericRecord item = GenericRecord.create(items.schema());
    List<Record> orderRows = new ArrayList<>();
    List<Record> itemRows = new ArrayList<>();
    for (int i = 0; i < ORDERS_PER_BATCH; i++) {
      long id = nextId++;
      orderRows.add(order.copy(Map.of("id", id, "category", category, "amount", id * 2.5)));
      for (int line = 1; line <= ITEMS_PER_ORDER; line++) {
        String product = PRODUCTS.get((int) ((id + line) % PRODUCTS.size()));
        itemRows.add(
            item.copy(Map.of("order_id", id, "line", line, "product", product, "quantity", line)));
      }
    }
    lastOrders = TableWrites.writeData(orders, partition, orderRows);
    orders.newAppend().appendFile(lastOrders).set(BATCH, Long.toString(step)).commit();
    published(orders);
    lastItems = TableWrites.writeData(items, null, itemRows);
    items.newAppend().appendFile(lastItems).set(BATCH, Long.toString(step)).commit();
    published(items);
    return "append of " + ORDERS_PER_BATCH + " " + category + " orders and their items";
  }

  /** The first order of the latest append: its items first, then the order. */
  private String deleteOneOrder() {
    if (lastOrders == null || lastItems == null) {
      return append();
    }
    long[] itemPositions = new long[ITEMS_PER_ORDER];
    for (int i = 0; i < ITEMS_PER_ORDER; i++) {
      itemPositions[i] = i;
    }
    items
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(items, lastItems, itemPositions))
        .set(BATCH, Long.toString(step))
        .commit();
    published(items);
    orders
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(orders, lastOrders, 0))
        .set(BATCH, Long.toString(step))
        .commit();
    published(orders);
    lastOrders = null;
    lastItems = null;
    return "position deletes: an order's items, then the order";
  }

  private String addColumn() {
    orders.updateSchema().addColumn("note", Types.StringType.get()).commit();
    published(orders);
    return "schema change of orders: add column note";
  }

  private String expireOnTheSource() {
    // The sources keep a short history; the replicas keep every snapshot they replicated.
    for (Table table : List.of(orders, items)) {
      table.expireSnapshots().retainLast(3).expireOlderThan(System.currentTimeMillis()).commit();
      published(table);
    }
    return "source-side expiry, retain last 3";
  }

  /** Names the table's new head and publishes its S3 event, right after each commit. */
  private void published(Table table) {
    nameHead(table);
    String metadataFile = S3Warehouse.metadataFile(table);
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
    replicas.close();
  }
}
