package io.icerepl.lab.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.localstack.LoopbackPort;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.failover.PromotedMetadata;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The failover campaign's group mode: a consistent failover of a replication group, repeated. Each
 * drill writes {@code orders} and {@code order_items} in lockstep on local files (each batch
 * committed to orders, then to its items, rows carrying the batch number) while the service jar's
 * {@code serve} replicates them as the group {@code sales} (at the group's default settings unless
 * {@link GroupSettings} says otherwise); the service is SIGKILLed at a random moment (the region is
 * lost), then {@code promote --consistent sales --mode now} runs as a separate process at the cut
 * the replicas prove, SIGKILLed 0–2 times at random moments and rerun until it exits 0. The Iceberg
 * library then reads both promoted tables: their {@code main}s must be at one cut (no items without
 * their order; at most the batch in flight has its order alone), both at the same cut tag, and
 * every snapshot the replicas held before the failover on {@code main} up to the cut or on the
 * cut's replicated branch after it.
 */
public final class GroupFailoverCampaign {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The service's default bound on a metadata file read. */
  private static final long MAX_METADATA_BYTES = 256L * 1024 * 1024;

  private static final Pattern CUT_TAG = Pattern.compile("cut tag +(\\S+)");
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "batch", Types.IntegerType.get()));

  /**
   * Settings; see the {@code campaign failover --group} options.
   *
   * @param group the group's settings the service is given; each empty one is the service's default
   */
  public record Settings(
      int drills,
      long seed,
      Path jar,
      Path workDir,
      List<String> jvmOptions,
      GroupSettings group) {}

  /**
   * The group settings a campaign overrides; empty: the service's default.
   *
   * @param tagInterval how often the service tags the group's cut (default five minutes: a failover
   *     then promotes at the cut the replicas prove, tagging it itself)
   * @param clockSkew the allowance for writers' clocks (default one second)
   * @param knownCurrentInterval how often an idle member is recorded current (default five seconds)
   */
  public record GroupSettings(
      Optional<Duration> tagInterval,
      Optional<Duration> clockSkew,
      Optional<Duration> knownCurrentInterval) {
    /** The service's defaults throughout. */
    public static final GroupSettings DEFAULTS =
        new GroupSettings(Optional.empty(), Optional.empty(), Optional.empty());

    /** The service's options that set them, none for a default. */
    List<String> options() {
      List<String> options = new ArrayList<>();
      tagInterval.ifPresent(d -> options.add("--replicator.groups[0].tag-interval=" + d));
      clockSkew.ifPresent(d -> options.add("--replicator.groups[0].clock-skew=" + d));
      knownCurrentInterval.ifPresent(
          d -> options.add("--replicator.groups[0].known-current-interval=" + d));
      return options;
    }

    String describe() {
      return "tag-interval "
          + tagInterval.map(Duration::toString).orElse("default (PT5M)")
          + ", clock-skew "
          + clockSkew.map(Duration::toString).orElse("default (PT1S)")
          + ", known-current-interval "
          + knownCurrentInterval.map(Duration::toString).orElse("default (PT5S)");
    }
  }

  /** One drill's figures; {@code failure} is null when it passed. */
  /**
   * @param cutLagSeconds from the moment the failover was asked to the cut the tables were promoted
   *     at: what the sources committed in it is not on the promoted {@code main}s
   * @param lossLagSeconds from the loss of the region (the service killed, the writers stopped) to
   *     the cut, as the campaign measured the lag before the failover was asked separately
   * @param knownCurrentAgeSeconds from the earliest moment the replicas recorded themselves known
   *     current from to the loss of the region: the part of the lag the records stood still
   * @param afterCut replicated snapshots after the cut, kept on its replicated branch
   * @param lost replicated snapshots neither on {@code main} up to the cut nor on that branch
   */
  private record Drill(
      int batches,
      int ordersAtCut,
      int itemsAtCut,
      double cutLagSeconds,
      double lossLagSeconds,
      double knownCurrentAgeSeconds,
      int kills,
      int killsAfterWriting,
      int snapshotsChecked,
      int afterCut,
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
        "failover campaign, group mode: seed %d, %d drills on local files, %s, work folder %s%n",
        settings.seed(), settings.drills(), settings.group().describe(), work);
    out.flush();
    List<Drill> drills = new ArrayList<>();
    for (int d = 1; d <= settings.drills(); d++) {
      Path dir = work.resolve("group-drill-" + d);
      Files.createDirectories(dir);
      Drill drill = drill(dir);
      drills.add(drill);
      out.printf(
          "  drill %3d: %s, %d batches written, promoted at batch %d / %d (orders / items), cut"
              + " lag %.1f s (known current %.1f s before the loss), %d kills (%d after"
              + " writing), %d replicated snapshots checked, %d after the cut on its branch, %d"
              + " lost%n",
          d,
          drill.failure() == null ? "passed" : "FAILED",
          drill.batches(),
          drill.ordersAtCut(),
          drill.itemsAtCut(),
          drill.cutLagSeconds(),
          drill.knownCurrentAgeSeconds(),
          drill.kills(),
          drill.killsAfterWriting(),
          drill.snapshotsChecked(),
          drill.afterCut(),
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
    AtomicLong firstBatchMs = new AtomicLong(Long.MAX_VALUE);
    Random pace = new Random(random.nextLong());
    Thread writer =
        new Thread(
            () -> {
              while (writing.get()) {
                int batch = written.get() + 1;
                append(orders, batch, 2);
                append(items, batch, 3);
                written.set(batch);
                firstBatchMs.compareAndSet(Long.MAX_VALUE, System.currentTimeMillis());
                sleep(50 + pace.nextInt(150));
              }
            },
            "group-writer");
    try {
      List<String> serve =
          new ArrayList<>(
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
                  "--replicator.groups[0].tables[1]=sales/order_items"));
      serve.addAll(settings.group().options());
      service = jar.start(dir.resolve("serve.log"), serve);
      writer.start();
      // the region is lost a random while after the replicas first prove a cut of the group
      awaitCut(port, firstBatchMs, Instant.now().plusSeconds(90));
      Thread.sleep(500 + random.nextInt(2500));
      service.destroyForcibly();
      service.waitFor();
      long lostAt = System.currentTimeMillis();
      writing.set(false);
      writer.join();

      List<String> replicas =
          List.of(
              replica.resolve("sales/orders").toUri().toString(),
              replica.resolve("sales/order_items").toUri().toString());
      List<Map<Long, Long>> heldBefore = new ArrayList<>();
      for (String location : replicas) {
        Map<Long, Long> held = new HashMap<>();
        tables
            .load(location)
            .snapshots()
            .forEach(s -> held.put(s.snapshotId(), s.timestampMillis()));
        heldBefore.add(held);
      }
      long knownCurrentFrom = knownCurrentFrom(replicas);
      List<String> promote =
          new ArrayList<>(List.of("promote", "--consistent", "sales", "--mode", "now"));
      replicas.forEach(location -> promote.addAll(List.of("--target", location)));
      long askedAt = System.currentTimeMillis();
      KilledRuns.Attempts promotion =
          promoteToSuccess(
              dir,
              promote,
              random.nextInt(3),
              List.of(replica.resolve("sales/orders"), replica.resolve("sales/order_items")));
      int[] kills = {promotion.kills(), promotion.killsAfterWriting()};
      Matcher tag = CUT_TAG.matcher(promotion.output());
      if (!tag.find()) {
        return failed(written.get(), kills, "promote printed no cut tag: " + promotion.output());
      }
      String cutTag = tag.group(1);
      long cutMs = CutTags.momentOfTag("sales", cutTag).orElseThrow();
      List<Table> promoted = new ArrayList<>();
      for (String location : replicas) {
        promoted.add(tables.load(location));
      }
      Set<Integer> orderBatches = batches(promoted.get(0));
      Set<Integer> itemBatches = batches(promoted.get(1));
      Accounted accounted = new Accounted();
      List<String> problems = new ArrayList<>();
      for (int t = 0; t < promoted.size(); t++) {
        Table table = promoted.get(t);
        Snapshot main = table.currentSnapshot();
        if (main == null || !Long.valueOf(main.snapshotId()).equals(snapshotOf(table, cutTag))) {
          problems.add(table.location() + "'s main is not at " + cutTag);
        }
        accounted.add(table, heldBefore.get(t), cutTag, cutMs);
      }
      if (!orderBatches.containsAll(itemBatches)) {
        problems.add("items without their order: " + itemBatches + " against " + orderBatches);
      }
      Set<Integer> ordersAlone = new TreeSet<>(orderBatches);
      ordersAlone.removeAll(itemBatches);
      if (ordersAlone.size() > 1
          || (ordersAlone.size() == 1 && ordersAlone.iterator().next() != orderBatches.size())) {
        problems.add("orders without items beyond the batch in flight: " + ordersAlone);
      }
      if (accounted.lost > 0) {
        problems.add(
            accounted.lost
                + " replicated snapshots are neither on main up to the cut nor on "
                + PromotedMetadata.replicatedAfterCut(cutTag)
                + " after it");
      }
      return new Drill(
          written.get(),
          orderBatches.size(),
          itemBatches.size(),
          (askedAt - cutMs) / 1000.0,
          (lostAt - cutMs) / 1000.0,
          (lostAt - knownCurrentFrom) / 1000.0,
          kills[0],
          kills[1],
          accounted.checked,
          accounted.onBranch,
          accounted.lost,
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

  /**
   * Where the snapshots a table's replica held before the failover are now: each committed up to
   * the cut must be on the promoted {@code main}, each after it on the cut's replicated branch (the
   * loss the failover reports); any other is lost.
   */
  private static final class Accounted {
    int checked;
    int onBranch;
    int lost;

    void add(Table table, Map<Long, Long> held, String cutTag, long cutMs) {
      Set<Long> onMain = ancestors(table, table.currentSnapshot());
      Set<Long> branch =
          ancestors(table, table.snapshot(PromotedMetadata.replicatedAfterCut(cutTag)));
      for (Map.Entry<Long, Long> snapshot : held.entrySet()) {
        checked++;
        boolean afterCut = snapshot.getValue() > cutMs;
        if (afterCut && branch.contains(snapshot.getKey()) && !onMain.contains(snapshot.getKey())) {
          onBranch++;
        } else if (afterCut || !onMain.contains(snapshot.getKey())) {
          lost++;
        }
      }
    }

    private static Set<Long> ancestors(Table table, Snapshot head) {
      Set<Long> ids = new HashSet<>();
      if (head != null) {
        SnapshotUtil.ancestorIds(head, table::snapshot).forEach(ids::add);
      }
      return ids;
    }
  }

  /** The earliest moment the replicas record themselves known current from. */
  private static long knownCurrentFrom(List<String> replicas) throws IOException {
    ReplicaFiles files = new ReplicaFiles(new LocalObjectStore(), MAX_METADATA_BYTES);
    long earliest = Long.MAX_VALUE;
    for (String location : replicas) {
      Long recorded = files.state(location).knownCurrentFromMs();
      if (recorded == null) {
        throw new IOException(location + " records no time it was known current");
      }
      earliest = Math.min(earliest, recorded);
    }
    return earliest;
  }

  private static Drill failed(int batches, int[] kills, String reason) {
    return new Drill(
        batches, 0, 0, Double.NaN, Double.NaN, Double.NaN, kills[0], kills[1], 0, 0, 0, reason);
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

  /**
   * Waits until the service's status shows a cut the replicas prove (each records itself current)
   * that a failover can promote at: one whose moment (now less its loss window: the cut less the
   * clock-skew allowance, a whole second) is after the first batch was on both tables. Before it, a
   * table had no snapshot at the cut and a consistent failover is refused.
   */
  private static void awaitCut(int port, AtomicLong firstBatchMs, Instant deadline)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    while (Instant.now().isBefore(deadline)) {
      try {
        long sentMs = System.currentTimeMillis();
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/groups/sales"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          JsonNode group = JSON.readTree(response.body());
          JsonNode window = group.path("lossWindowSeconds");
          // the server read the cut after the request was sent: this moment is no later than it
          if (window.isNumber()
              && sentMs - Math.round(window.asDouble() * 1000) >= firstBatchMs.get()) {
            return;
          }
        }
      } catch (IOException e) {
        // not up yet
      }
      Thread.sleep(200);
    }
    throw new IOException(
        "the replicas proved no cut of the group after its first batch within 90 s");
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
    List<Double> lossLag = new ArrayList<>();
    List<Double> knownAge = new ArrayList<>();
    int afterCut = 0;
    int kills = 0;
    int afterWriting = 0;
    int lost = 0;
    int checked = 0;
    int inFlight = 0;
    for (Drill d : drills) {
      if (!Double.isNaN(d.cutLagSeconds())) {
        lag.add(d.cutLagSeconds());
        lossLag.add(d.lossLagSeconds());
        knownAge.add(d.knownCurrentAgeSeconds());
      }
      afterCut += d.afterCut();
      kills += d.kills();
      afterWriting += d.killsAfterWriting();
      lost += d.lost();
      checked += d.snapshotsChecked();
      inFlight += d.ordersAtCut() != d.itemsAtCut() ? 1 : 0;
    }
    long passed = drills.stream().filter(d -> d.failure() == null).count();
    out.println();
    out.println(
        "| failover campaign, group mode (seed "
            + settings.seed()
            + ", local files, "
            + settings.group().describe()
            + ") | |");
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
    row(
        "replicated snapshots lost",
        lost
            + " (of "
            + checked
            + " checked; "
            + afterCut
            + " replicated after the cut, on its replicated branch)");
    row("cut lag at failover median (min-max)", spread(lag));
    row("cut lag at the loss of the region, median (min-max)", spread(lossLag));
    row("replicas known current before the loss, median (min-max)", spread(knownAge));
    row("wall time", String.format("%.1f s", wall));
  }

  private static String spread(List<Double> seconds) {
    return seconds.isEmpty()
        ? "no cut"
        : String.format(
            "%.1f s (%.1f-%.1f s)",
            Spread.median(seconds), Spread.min(seconds), Spread.max(seconds));
  }

  private void row(String name, String value) {
    out.println("| " + name + " | " + value + " |");
  }
}
