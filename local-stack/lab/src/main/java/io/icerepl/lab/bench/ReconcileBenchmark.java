package io.icerepl.lab.bench;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.worker.ReconcileSchedule;
import io.icerepl.app.engine.worker.Reconciler;
import io.icerepl.app.engine.worker.ReplicaMaintenance;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableChecks;
import io.icerepl.app.engine.worker.TableContext;
import io.icerepl.app.engine.worker.TableDiscovery;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.app.engine.worker.TableRunner;
import io.icerepl.app.service.status.StatusBoard;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.RequestCountingStore;
import io.icerepl.copier.store.RequestCountingStore.Kind;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * Reconciliation of many small replicated tables under one rule, on local files: per pass, the
 * requests each side's store receives by kind (the S3 request each call would be) and the time
 * until every triggered run has ended. The tables are Hadoop-style (a {@code v1.metadata.json} and
 * a version hint, written with the Iceberg library's metadata writer), in folders of 100; the first
 * pass backfills their replicas. The baseline is the pass as it was before a pass kept listings:
 * every table triggered, each run reading both heads to find them in sync.
 */
public final class ReconcileBenchmark {
  private static final int TABLES_PER_NAMESPACE = 100;
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  private static final Duration PASS = Duration.ofMinutes(1);
  private static final Duration IDLE = Duration.ofMinutes(15);

  private final PrintWriter out;

  /**
   * Requests of one unchanged pass listing every table: what each pass costs without a schedule.
   */
  private long everyPassRequests;

  public ReconcileBenchmark(PrintWriter out) {
    this.out = out;
  }

  public void run(Path work, int tables, int passes, int lanes) throws Exception {
    run(work, tables, passes, lanes, 0, 0);
  }

  /**
   * @param dayPasses passes, one a simulated minute apart, of the adaptive schedule's day (zero:
   *     none)
   * @param changes commits whose event is lost, on random tables at random passes of that day
   */
  public void run(Path work, int tables, int passes, int lanes, int dayPasses, int changes)
      throws Exception {
    Path source = work.resolve("source");
    Path replica = work.resolve("replica");
    long setUp = System.nanoTime();
    writeTables(source, tables);
    out.printf(
        "reconcile: %d unchanged tables under one rule (local files, %d lanes), %.1f s to write%n",
        tables, lanes, (System.nanoTime() - setUp) / 1e9);
    out.printf(
        "%-44s %8s %8s %8s %8s %8s %9s%n",
        "pass", "LIST", "GET", "HEAD", "PUT", "lease", "seconds");
    out.flush();
    TableRule rule =
        new TableRule(
            "bench",
            source.toUri().toString(),
            List.of(new RuleTarget("replica", replica.toUri().toString(), List.of())),
            List.of(),
            RetentionOptions.policy(Optional.empty(), Optional.empty(), Optional.empty(), false),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
    RequestCountingStore sourceStore = new RequestCountingStore(new LocalObjectStore());
    RequestCountingStore targetStore = new RequestCountingStore(new LocalObjectStore());
    Counted counted = new Counted(sourceStore, targetStore);

    this.everyPassRequests = 0;
    double[] kept = new double[passes];
    double[] baseline = new double[passes];
    try (Engine engine = new Engine(rule, counted, lanes)) {
      counted.pass("1 backfill", engine::reconcile);
      for (int i = 0; i < passes; i++) {
        kept[i] = counted.pass("unchanged (listings kept) " + (i + 1), engine::reconcile);
        everyPassRequests = Math.max(everyPassRequests, counted.requests());
        baseline[i] =
            counted.pass("baseline: every table triggered " + (i + 1), engine::triggerAll);
      }
      writeNextVersion(source.resolve(namespace(0)).resolve(table(0)));
      counted.pass("one table changed", engine::reconcile);
    }
    try (Engine restarted = new Engine(rule, counted, lanes)) {
      counted.pass("first pass after a restart", restarted::reconcile);
      counted.pass("the pass after it", restarted::reconcile);
    }
    Arrays.sort(kept);
    Arrays.sort(baseline);
    out.printf(
        "unchanged pass: %.2f s (median of %d, %.2f-%.2f), baseline %.2f s (%.2f-%.2f): %.1fx faster%n",
        median(kept),
        passes,
        kept[0],
        kept[passes - 1],
        median(baseline),
        baseline[0],
        baseline[passes - 1],
        median(baseline) / median(kept));
    out.flush();
    if (dayPasses > 0) {
      day(rule, counted, lanes, replica, dayPasses, changes);
    }
  }

  /** The stores of both sides, counted, and the table of figures they print. */
  private final class Counted implements StoreFactory {
    final RequestCountingStore source;
    final RequestCountingStore target;

    Counted(RequestCountingStore source, RequestCountingStore target) {
      this.source = source;
      this.target = target;
    }

    @Override
    public ObjectStore sourceStore(String location) {
      return source;
    }

    @Override
    public ObjectStore targetStore(String location) {
      return target;
    }

    /** Runs one pass to its end; prints its requests, both sides together, and time. */
    double pass(String name, PassAction pass) throws InterruptedException {
      source.reset();
      target.reset();
      long start = System.nanoTime();
      pass.run();
      double seconds = (System.nanoTime() - start) / 1e9;
      out.printf(
          "%-44s %8d %8d %8d %8d %8d %9.2f%n",
          name,
          both(Kind.LIST),
          both(Kind.GET),
          both(Kind.HEAD),
          both(Kind.PUT),
          both(Kind.LEASE),
          seconds);
      out.flush();
      return seconds;
    }

    void reset() {
      source.reset();
      target.reset();
    }

    /** Every request of the last pass, both sides, all kinds. */
    long requests() {
      long all = 0;
      for (Kind kind : Kind.values()) {
        all += both(kind);
      }
      return all;
    }

    private long both(Kind kind) {
      return source.count(kind) + target.count(kind);
    }
  }

  @FunctionalInterface
  private interface PassAction {
    void run() throws InterruptedException;
  }

  /** The service's engine without the service: one rule, its lanes and its reconciler. */
  private static final class Engine implements AutoCloseable {
    final TableRule rule;
    final TableRules rules;
    final TableDiscovery discovery;
    final TableRunner runner;
    final ReplicationCoordinator coordinator;
    final Reconciler reconciler;

    /** Reconciliation's per-table checks, judged by wall time: nothing in the benchmark hangs. */
    final TableChecks checks = new TableChecks(4, Duration.ofSeconds(10), Clock.systemUTC());

    /** Tables (as {@code ns/table}) a run replicated, in the order their runs began. */
    final List<String> runs = new CopyOnWriteArrayList<>();

    Engine(TableRule rule, StoreFactory stores, int lanes) {
      this(rule, stores, lanes, Clock.systemUTC(), ReconcileSchedule.everyPass());
    }

    Engine(
        TableRule rule, StoreFactory stores, int lanes, Clock clock, ReconcileSchedule schedule) {
      this.rule = rule;
      this.rules = new TableRules(List.of(rule));
      StatusBoard board = new StatusBoard(Clock.systemUTC(), new SimpleMeterRegistry());
      this.discovery = new TableDiscovery(stores, new CatalogClients());
      TableContext context =
          TableContext.builder(
                  stores,
                  Clock.systemUTC(),
                  Executors.newFixedThreadPool(lanes),
                  ReplicationOptions.defaults(),
                  rules,
                  board)
              .build();
      this.runner = new TableRunner(context);
      this.coordinator =
          new ReplicationCoordinator(
              key -> {
                runs.add(key.table());
                return runner.replicate(key);
              },
              new ReplicaMaintenance(context)::expire,
              board::failed,
              board::laneRefused,
              Integer.MAX_VALUE,
              Executors.newFixedThreadPool(lanes),
              Executors.newSingleThreadScheduledExecutor(),
              lanes,
              Duration.ofMinutes(1),
              Duration.ofMinutes(1));
      this.reconciler =
          new Reconciler(
              rules, discovery, coordinator, board, runner, clock, schedule, key -> false, checks);
    }

    void reconcile() throws InterruptedException {
      reconciler.reconcile();
      awaitIdle();
    }

    /** What a pass did before it kept listings: every table found is triggered. */
    void triggerAll() throws InterruptedException {
      for (String table : discovery.tables(rule)) {
        for (TableKey key : rules.keys(rule, table)) {
          coordinator.trigger(key);
        }
      }
      awaitIdle();
    }

    private void awaitIdle() throws InterruptedException {
      while (coordinator.pending() > 0) {
        Thread.sleep(5);
      }
    }

    @Override
    public void close() throws InterruptedException {
      checks.close();
      coordinator.close();
      runner.close();
    }
  }

  /**
   * A simulated day of the service's default schedule with an event intake: one pass a minute, idle
   * tables listed ever less often up to every {@link #IDLE}. Some commits land on random tables
   * between passes with their events lost; each must be replicated by reconciliation, and the
   * passes it took are its detection delay. Requests per day against every table listed at every
   * pass, the unchanged pass measured above times the passes of a day.
   */
  private void day(
      TableRule rule, Counted counted, int lanes, Path replica, int dayPasses, int changes)
      throws Exception {
    Path source = Path.of(java.net.URI.create(rule.source()));
    int tables = countTables(source);
    MutableClock clock = new MutableClock();
    Random random = new Random(42);
    Map<Integer, Integer> lostAt = new HashMap<>();
    // early enough in the day to be caught within it
    int bound = (int) IDLE.dividedBy(PASS) + 1;
    for (int i = 0; i < changes && dayPasses > bound + 1; i++) {
      lostAt.put(1 + random.nextInt(dayPasses - bound - 1), random.nextInt(tables));
    }
    Map<String, Integer> pending = new HashMap<>();
    Map<String, Integer> versions = new HashMap<>();
    List<Integer> delays = new ArrayList<>();
    long requests = 0;
    long[] perPass = new long[dayPasses];
    double[] passSeconds = new double[dayPasses];
    long start = System.nanoTime();
    try (Engine engine =
        new Engine(rule, counted, lanes, clock, new ReconcileSchedule(PASS, IDLE))) {
      for (int pass = 0; pass < dayPasses; pass++) {
        Integer changed = lostAt.get(pass);
        if (changed != null) {
          Path location =
              source.resolve(namespace(changed / TABLES_PER_NAMESPACE)).resolve(table(changed));
          String path = namespace(changed / TABLES_PER_NAMESPACE) + "/" + table(changed);
          versions.put(path, writeNextVersion(location));
          pending.putIfAbsent(path, pass);
        }
        engine.runs.clear();
        counted.reset();
        long passStart = System.nanoTime();
        engine.reconcile();
        passSeconds[pass] = (System.nanoTime() - passStart) / 1e9;
        perPass[pass] = counted.requests();
        requests += perPass[pass];
        for (String run : engine.runs) {
          Integer since = pending.remove(run);
          if (since != null) {
            delays.add(pass - since + 1);
          }
        }
        clock.advance(PASS);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!pending.isEmpty()) {
      throw new IllegalStateException("lost commits never reconciled: " + pending);
    }
    for (Map.Entry<String, Integer> changed : versions.entrySet()) {
      String version =
          new HadoopTables(new Configuration())
              .load(replica.resolve(changed.getKey()).toUri().toString())
              .properties()
              .get("changed");
      if (!Integer.toString(changed.getValue()).equals(version)) {
        throw new IllegalStateException(
            "replica of " + changed.getKey() + " lacks its lost commit: changed=" + version);
      }
    }
    long perDay = requests * (24 * 60) / dayPasses;
    long baselinePerDay = everyPassRequests * 24 * 60;
    long[] sorted = perPass.clone();
    Arrays.sort(sorted);
    delays.sort(Integer::compare);
    Arrays.sort(passSeconds);
    out.printf(
        "adaptive schedule, %d tables, %d passes a minute apart (idle interval %d min), %.1f s:%n",
        tables, dayPasses, IDLE.toMinutes(), seconds);
    out.printf(
        "  requests per pass: median %d (%d-%d), every table every pass: %d%n",
        sorted[dayPasses / 2], sorted[0], sorted[dayPasses - 1], everyPassRequests);
    out.printf(
        "  seconds per pass: median %.3f (%.3f-%.3f)%n",
        median(passSeconds), passSeconds[0], passSeconds[dayPasses - 1]);
    out.printf(
        "  requests per day: %,d against %,d listing every table every pass (%.3fx)%n",
        perDay, baselinePerDay, perDay / (double) baselinePerDay);
    if (!delays.isEmpty()) {
      out.printf(
          "  %d commits with their event lost, all replicated: detected after %d passes median"
              + " (%d-%d), bound %d (idle interval + one pass)%n",
          delays.size(),
          delays.get(delays.size() / 2),
          delays.get(0),
          delays.get(delays.size() - 1),
          bound);
    }
    out.flush();
  }

  private static int countTables(Path source) throws IOException {
    try (var namespaces = Files.list(source)) {
      int count = 0;
      for (Path namespace : namespaces.toList()) {
        try (var tables = Files.list(namespace)) {
          count += (int) tables.count();
        }
      }
      return count;
    }
  }

  /** The reconciler's clock, moved a pass at a time: a day runs in minutes. */
  private static final class MutableClock extends Clock {
    private volatile long millis = System.currentTimeMillis();

    void advance(Duration by) {
      millis += by.toMillis();
    }

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public java.time.Instant instant() {
      return java.time.Instant.ofEpochMilli(millis);
    }
  }

  private static void writeTables(Path source, int tables) throws IOException {
    for (int i = 0; i < tables; i++) {
      Path location = source.resolve(namespace(i / TABLES_PER_NAMESPACE)).resolve(table(i));
      write(
          location,
          1,
          TableMetadata.newTableMetadata(
              SCHEMA,
              PartitionSpec.unpartitioned(),
              SortOrder.unsorted(),
              location.toUri().toString(),
              Map.of("format-version", "2")));
    }
  }

  /**
   * Commits the next version of the table at {@code location}: the property {@code changed} set to
   * its number, which it returns.
   */
  private static int writeNextVersion(Path location) throws IOException {
    Path metadata = location.resolve("metadata");
    int version = Integer.parseInt(Files.readString(metadata.resolve("version-hint.text")).trim());
    Path current = metadata.resolve("v" + version + ".metadata.json");
    TableMetadata base =
        TableMetadataParser.fromJson(current.toUri().toString(), Files.readString(current));
    write(
        location,
        version + 1,
        TableMetadata.buildFrom(base)
            .setProperties(Map.of("changed", Integer.toString(version + 1)))
            .build());
    return version + 1;
  }

  private static void write(Path location, int version, TableMetadata table) throws IOException {
    Path metadata = location.resolve("metadata");
    Files.createDirectories(metadata);
    Files.writeString(
        metadata.resolve("v" + version + ".metadata.json"), TableMetadataParser.toJson(table));
    Files.writeString(
        metadata.resolve("version-hint.text"), Integer.toString(version), StandardCharsets.UTF_8);
  }

  private static String namespace(int index) {
    return "ns%03d".formatted(index);
  }

  private static String table(int index) {
    return "t%05d".formatted(index);
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
