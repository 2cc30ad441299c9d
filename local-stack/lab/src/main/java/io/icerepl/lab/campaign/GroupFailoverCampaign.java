package io.icerepl.lab.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.localstack.LoopbackPort;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.group.CutTags;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
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
 * The failover campaign's group mode: a consistent failover of a replication group, repeated. Each
 * drill writes {@code orders} and {@code order_items} in lockstep on local files (each batch
 * committed to orders, then to its items, rows carrying the batch number) while the service jar's
 * {@code serve} replicates them as the group {@code sales} and tags its cut; the service is
 * SIGKILLed at a random moment (the region is lost), then {@code promote --consistent sales --mode
 * now} runs as a separate process, SIGKILLed 0–2 times at random moments and rerun until it exits
 * 0. The Iceberg library then reads both promoted tables: their {@code main}s must be at one cut
 * (no items without their order; at most the batch in flight has its order alone), both at the same
 * cut tag, and every snapshot the replicas held before the failover must still be there.
 */
public final class GroupFailoverCampaign {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern CUT_TAG = Pattern.compile("cut tag +(\\S+)");
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "batch", Types.IntegerType.get()));

  /** Settings; see the {@code campaign failover --group} options. */
  public record Settings(int drills, long seed, Path jar, Path workDir, List<String> jvmOptions) {}

  /** One drill's figures; {@code failure} is null when it passed. */
  private record Drill(
      int batches,
      int ordersAtCut,
      int itemsAtCut,
      double cutLagSeconds,
      int kills,
      int killsAfterWriting,
      int snapshotsChecked,
      int lost,
      String failure) {}

  private final Settings settings;
  private final ServiceJar jar;
  private final PrintWriter out;
  private final Random random;
  private final KilledRuns runs;
  private Double promoteWindow;

  public GroupFailoverCampaign(Settings settings, PrintWriter out) {
    this.settings = settings;
    this.jar = new ServiceJar(settings.jar(), settings.jvmOptions());
    this.out = out;
    this.random = new Random(settings.seed());
    this.runs = new KilledRuns(jar, random);
  }

  /** Runs the drills, prints their figures and returns whether every drill passed. */
  public boolean run() throws IOException {
    long started = System.nanoTime();
    Path work =
        settings.workDir() != null
            ? settings.workDir()
            : Files.createTempDirectory("icerepl-group-failover-");
    out.printf(
        "failover campaign, group mode: seed %d, %d drills on local files, work folder %s%n",
        settings.seed(), settings.drills(), work);
    out.flush();
    List<Drill> drills = new ArrayList<>();
    for (int d = 1; d <= settings.drills(); d++) {
      Path dir = work.resolve("group-drill-" + d);
      Files.createDirectories(dir);
      Drill drill = drill(dir);
      drills.add(drill);
      out.printf(
          "  drill %3d: %s, %d batches written, promoted at batch %d / %d (orders / items), cut"
              + " lag %.1f s, %d kills (%d after writing), %d replicated snapshots checked, %d"
              + " lost%n",
          d,
          drill.failure() == null ? "passed" : "FAILED",
          drill.batches(),
          drill.ordersAtCut(),
          drill.itemsAtCut(),
          drill.cutLagSeconds(),
          drill.kills(),
          drill.killsAfterWriting(),
          drill.snapshotsChecked(),
          drill.lost());
      if (drill.failure() != null) {
        out.println("    failed: " + drill.failure() + " (" + dir + ")");
      }
      out.flush();
    }
    printSummary(drills, (System.nanoTime() - started) / 1e9);
    boolean ok = drills.stream().allMatch(d -> d.failure() == null && d.lost() == 0);
    out.println(ok ? "failover campaign, group mode: OK" : "failover campaign, group mode: FAILED");
    out.flush();
    return ok;
  }

  private Drill drill(Path dir) {
    Path warehouse = dir.resolve("warehouse");
    Path replica = dir.resolve("replica");
    HadoopTables tables = new HadoopTables(new Configuration());
    Table orders = create(tables, warehouse.resolve("sales/orders"));
    Table items = create(tables, warehouse.resolve("sales/order_items"));
    int port = LoopbackPort.free();
    Process service = null;
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger written = new AtomicInteger();
    Random pace = new Random(random.nextLong());
    Thread writer =
        new Thread(
            () -> {
              while (writing.get()) {
                int batch = written.get() + 1;
                append(orders, batch, 2);
                append(items, batch, 3);
                written.set(batch);
                sleep(50 + pace.nextInt(150));
              }
            },
            "group-writer");
    try {
      service =
          jar.start(
              dir.resolve("serve.log"),
              List.of(
                  "serve",
                  "--server.port=" + port,
                  "--replicator.rules[0].name=lake",
                  "--replicator.rules[0].source=" + warehouse.toUri(),
                  "--replicator.rules[0].targets[0].name=dr",
                  "--replicator.rules[0].targets[0].prefix=" + replica.toUri(),
                  "--replicator.reconciliation-interval=PT0.5S",
                  "--replicator.settle-time=PT0.2S",
                  "--replicator.api.public-status=true",
                  "--replicator.groups[0].name=sales",
                  "--replicator.groups[0].target=dr",
                  "--replicator.groups[0].tables[0]=sales/orders",
                  "--replicator.groups[0].tables[1]=sales/order_items",
                  "--replicator.groups[0].clock-skew=PT0.1S",
                  "--replicator.groups[0].tag-interval=PT0.5S"));
      writer.start();
      // the region is lost a random while after the group's first cut tag
      awaitCutTag(port, Instant.now().plusSeconds(90));
      Thread.sleep(500 + random.nextInt(2500));
      service.destroyForcibly();
      service.waitFor();
      long lostAt = System.currentTimeMillis();
      writing.set(false);
      writer.join();

      String ordersReplica = replica.resolve("sales/orders").toUri().toString();
      String itemsReplica = replica.resolve("sales/order_items").toUri().toString();
      List<Set<Long>> heldBefore = new ArrayList<>();
      for (String location : List.of(ordersReplica, itemsReplica)) {
        Set<Long> ids = new HashSet<>();
        tables.load(location).snapshots().forEach(s -> ids.add(s.snapshotId()));
        heldBefore.add(ids);
      }
      KilledRuns.Attempts promotion =
          promoteToSuccess(
              dir,
              List.of(
                  "promote",
                  "--consistent",
                  "sales",
                  "--mode",
                  "now",
                  "--target",
                  ordersReplica,
                  "--target",
                  itemsReplica),
              random.nextInt(3),
              List.of(replica.resolve("sales/orders"), replica.resolve("sales/order_items")));
      int[] kills = {promotion.kills(), promotion.killsAfterWriting()};
      Matcher tag = CUT_TAG.matcher(promotion.output());
      if (!tag.find()) {
        return failed(written.get(), kills, "promote printed no cut tag: " + promotion.output());
      }
      String cutTag = tag.group(1);
      long cutMs = CutTags.momentOfTag("sales", cutTag).orElseThrow();
      Table promotedOrders = tables.load(ordersReplica);
      Table promotedItems = tables.load(itemsReplica);
      Set<Integer> orderBatches = batches(promotedOrders);
      Set<Integer> itemBatches = batches(promotedItems);
      int lost = 0;
      int checked = 0;
      List<Table> promoted = List.of(promotedOrders, promotedItems);
      for (int t = 0; t < promoted.size(); t++) {
        for (Long id : heldBefore.get(t)) {
          checked++;
          lost += promoted.get(t).snapshot(id) == null ? 1 : 0;
        }
      }
      List<String> problems = new ArrayList<>();
      if (!orderBatches.containsAll(itemBatches)) {
        problems.add("items without their order: " + itemBatches + " against " + orderBatches);
      }
      Set<Integer> ordersAlone = new TreeSet<>(orderBatches);
      ordersAlone.removeAll(itemBatches);
      if (ordersAlone.size() > 1
          || (ordersAlone.size() == 1 && ordersAlone.iterator().next() != orderBatches.size())) {
        problems.add("orders without items beyond the batch in flight: " + ordersAlone);
      }
      for (Table table : promoted) {
        Snapshot main = table.currentSnapshot();
        if (main == null || !Long.valueOf(main.snapshotId()).equals(snapshotOf(table, cutTag))) {
          problems.add(table.location() + "'s main is not at " + cutTag);
        }
      }
      if (lost > 0) {
        problems.add(lost + " replicated snapshots are gone from the promoted tables");
      }
      return new Drill(
          written.get(),
          orderBatches.size(),
          itemBatches.size(),
          (lostAt - cutMs) / 1000.0,
          kills[0],
          kills[1],
          checked,
          lost,
          problems.isEmpty() ? null : String.join("; ", problems));
    } catch (Exception e) {
      return failed(written.get(), new int[2], e.toString());
    } finally {
      writing.set(false);
      if (service != null) {
        service.destroyForcibly();
      }
    }
  }

  private static Drill failed(int batches, int[] kills, String reason) {
    return new Drill(batches, 0, 0, Double.NaN, kills[0], kills[1], 0, 0, reason);
  }

  /**
   * Runs {@code promote}, SIGKILLing its first {@code kills} attempts, each at a random moment
   * within the first drill's promote time or just after the attempt began writing, then until it
   * exits 0 (see {@link KilledRuns}).
   */
  private KilledRuns.Attempts promoteToSuccess(
      Path dir, List<String> command, int kills, List<Path> tables)
      throws IOException, InterruptedException {
    KilledRuns.Attempts attempts =
        runs.runToSuccess(
            dir,
            "promote",
            command,
            promoteWindow == null ? 0 : kills,
            promoteWindow == null ? 0 : promoteWindow,
            true,
            tables,
            tables);
    if (promoteWindow == null) {
      promoteWindow = attempts.seconds();
    }
    return attempts;
  }

  private static void awaitCutTag(int port, Instant deadline) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    while (Instant.now().isBefore(deadline)) {
      try {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/groups/sales"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          JsonNode group = JSON.readTree(response.body());
          if (group.path("cutTag").isTextual()) {
            return;
          }
        }
      } catch (IOException e) {
        // not up yet
      }
      Thread.sleep(200);
    }
    throw new IOException("the group's cut was not tagged within 90 s");
  }

  private static Long snapshotOf(Table table, String ref) {
    Snapshot snapshot = table.snapshot(ref);
    return snapshot == null ? null : snapshot.snapshotId();
  }

  private static Table create(HadoopTables tables, Path folder) {
    return tables.create(
        SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"),
        folder.toUri().toString());
  }

  private static void append(Table table, int batch, int rows) {
    GenericRecord record = GenericRecord.create(table.schema());
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", (long) batch * 100 + i, "batch", batch)));
    }
    table.newAppend().appendFile(TableWrites.writeData(table, null, records)).commit();
  }

  /** The batches a reader of the table's {@code main} sees. */
  private static Set<Integer> batches(Table table) throws IOException {
    Set<Integer> batches = new TreeSet<>();
    if (table.currentSnapshot() == null) {
      return batches;
    }
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(row -> batches.add((Integer) row.getField("batch")));
    }
    return batches;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void printSummary(List<Drill> drills, double wall) {
    List<Double> lag = new ArrayList<>();
    int kills = 0;
    int afterWriting = 0;
    int lost = 0;
    int checked = 0;
    int inFlight = 0;
    for (Drill d : drills) {
      if (!Double.isNaN(d.cutLagSeconds())) {
        lag.add(d.cutLagSeconds());
      }
      kills += d.kills();
      afterWriting += d.killsAfterWriting();
      lost += d.lost();
      checked += d.snapshotsChecked();
      inFlight += d.ordersAtCut() != d.itemsAtCut() ? 1 : 0;
    }
    long passed = drills.stream().filter(d -> d.failure() == null).count();
    out.println();
    out.println("| failover campaign, group mode (seed " + settings.seed() + ", local files) | |");
    out.println("|---|---|");
    row("drills run / passed", drills.size() + " / " + passed);
    row(
        "kills during promote --consistent",
        kills + " (" + afterWriting + " after the command had written to a table)");
    row(
        "promoted at one cut",
        passed
            + " of "
            + drills.size()
            + " drills ("
            + inFlight
            + " with the batch in flight's order alone, as its source showed it)");
    row("replicated snapshots lost", lost + " (of " + checked + " checked)");
    row(
        "cut lag at failover median / max",
        lag.isEmpty()
            ? "no cut"
            : String.format("%.1f s / %.1f s", Spread.median(lag), Spread.max(lag)));
    row("wall time", String.format("%.1f s", wall));
  }

  private void row(String name, String value) {
    out.println("| " + name + " | " + value + " |");
  }
}
