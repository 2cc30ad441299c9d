package io.icerepl.lab.bench;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.retention.RetentionOptions;
import io.icerepl.app.engine.worker.CatalogTableLocations;
import io.icerepl.app.engine.worker.Reconciler;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.RuleTarget;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableContext;
import io.icerepl.app.engine.worker.TableDiscovery;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableOperations;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
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

  private final PrintWriter out;

  public ReconcileBenchmark(PrintWriter out) {
    this.out = out;
  }

  public void run(Path work, int tables, int passes, int lanes) throws Exception {
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
            Optional.empty());
    RequestCountingStore sourceStore = new RequestCountingStore(new LocalObjectStore());
    RequestCountingStore targetStore = new RequestCountingStore(new LocalObjectStore());
    Counted counted = new Counted(sourceStore, targetStore);

    double[] kept = new double[passes];
    double[] baseline = new double[passes];
    try (Engine engine = new Engine(rule, counted, lanes)) {
      counted.pass("1 backfill", engine::reconcile);
      for (int i = 0; i < passes; i++) {
        kept[i] = counted.pass("unchanged (listings kept) " + (i + 1), engine::reconcile);
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

    Engine(TableRule rule, StoreFactory stores, int lanes) {
      this.rule = rule;
      this.rules = new TableRules(List.of(rule));
      StatusBoard board = new StatusBoard(Clock.systemUTC(), new SimpleMeterRegistry());
      this.discovery = new TableDiscovery(stores, new CatalogClients());
      TableContext context =
          new TableContext(
              stores,
              Clock.systemUTC(),
              Executors.newFixedThreadPool(lanes),
              ReplicationOptions.defaults(),
              rules,
              board,
              new CatalogClients(),
              new CatalogTableLocations());
      this.runner = new TableRunner(context);
      this.coordinator =
          new ReplicationCoordinator(
              runner::replicate,
              new TableOperations(context)::expire,
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
              rules,
              discovery,
              coordinator,
              board,
              runner::restore,
              runner::unchangedSince,
              java.time.Clock.systemUTC());
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
      coordinator.close();
      runner.close();
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

  /** Commits a second version of the table at {@code location}: a property set. */
  private static void writeNextVersion(Path location) throws IOException {
    Path first = location.resolve("metadata").resolve("v1.metadata.json");
    TableMetadata base =
        TableMetadataParser.fromJson(first.toUri().toString(), Files.readString(first));
    write(
        location,
        2,
        TableMetadata.buildFrom(base).setProperties(Map.of("changed", "true")).build());
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
