package io.icerepl.app.engine.backfill;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.batch.BatchOperations;
import io.icerepl.app.engine.catalog.CatalogClients;
import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.app.engine.worker.StoreFactory;
import io.icerepl.app.engine.worker.TableContext;
import io.icerepl.app.engine.worker.TableDiscovery;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableRule;
import io.icerepl.app.engine.worker.TableRules;
import io.icerepl.app.engine.worker.TableRunner;
import io.icerepl.app.engine.worker.TableStatus;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Replicates every table of every rule once, as the service's runs do (the same lease per replica,
 * the same confinement of each table's files), a bounded number of tables at once. A replica
 * already up to date costs a few reads, so a rerun continues where a stopped one left off.
 */
public final class Backfill {
  /**
   * Runs of one table while a newer source metadata file settles: a source still being written
   * keeps its last versions for the service or the next backfill.
   */
  static final int MAX_SETTLING_RUNS = 3;

  private final TableRules rules;
  private final TableDiscovery discovery;
  private final Clock clock;
  private final int tablesInParallel;
  private final Map<TableKey, ReplicationSummary> summaries = new ConcurrentHashMap<>();
  private final TableRunner runner;
  private volatile BackfillListener listener = BackfillListener.NONE;

  /**
   * @param fileExecutor copies the files of all tables; owned by the caller
   * @param tablesInParallel tables replicated at once
   * @param batchOperations where the byte-for-byte copies of each table go first, when it finds
   *     them worth a job ({@link BatchOperations#OFF}: none)
   */
  public Backfill(
      TableRules rules,
      StoreFactory stores,
      Clock clock,
      ExecutorService fileExecutor,
      ReplicationOptions options,
      CatalogClients catalogs,
      int tablesInParallel,
      BatchOperations batchOperations) {
    if (tablesInParallel < 1) {
      throw new IllegalArgumentException(
          "Cannot backfill: tables in parallel must be at least 1, got " + tablesInParallel);
    }
    this.rules = rules;
    this.discovery = new TableDiscovery(stores, catalogs);
    this.clock = clock;
    this.tablesInParallel = tablesInParallel;
    this.runner =
        new TableRunner(
            TableContext.builder(stores, clock, fileExecutor, options, rules, new Outcomes())
                .catalogs(catalogs)
                .batchOperations(batchOperations)
                .build());
  }

  /**
   * Discovers every rule's tables and replicates each to each target.
   *
   * @return one outcome per rule that could not be listed, then one per table and target, in the
   *     rules' order and each rule's tables sorted
   */
  public List<TableOutcome> run(BackfillListener listener) throws InterruptedException {
    this.listener = listener;
    List<TableOutcome> unlisted = new ArrayList<>();
    List<TableKey> keys = new ArrayList<>();
    for (TableRule rule : rules.rules()) {
      long start = clock.millis();
      try {
        for (String table : discovery.tables(rule)) {
          keys.addAll(rules.keys(rule, table));
        }
      } catch (RuntimeException e) {
        unlisted.add(
            new TableOutcome(
                rule.name(),
                rule.source(),
                "",
                Optional.empty(),
                Optional.of(e.getMessage()),
                Duration.ofMillis(clock.millis() - start)));
      }
    }
    listener.discovered(keys.size());
    unlisted.forEach(listener::finished);
    ExecutorService tables = Executors.newFixedThreadPool(tablesInParallel, new TableThreads());
    try {
      List<Future<TableOutcome>> runs = new ArrayList<>();
      for (TableKey key : keys) {
        runs.add(tables.submit(() -> replicate(key)));
      }
      List<TableOutcome> outcomes = new ArrayList<>(unlisted);
      for (Future<TableOutcome> run : runs) {
        outcomes.add(run.get());
      }
      return outcomes;
    } catch (ExecutionException e) {
      throw new IllegalStateException("Cannot backfill: " + e.getCause().getMessage(), e);
    } finally {
      tables.shutdownNow();
    }
  }

  private TableOutcome replicate(TableKey key) throws InterruptedException {
    long start = clock.millis();
    ReplicationSummary total = ReplicationSummary.none();
    TableOutcome outcome;
    try {
      for (int run = 1; ; run++) {
        Optional<Duration> settlesIn = runner.replicate(key);
        total = add(total, summaries.remove(key));
        if (settlesIn.isEmpty() || run == MAX_SETTLING_RUNS) {
          break;
        }
        Thread.sleep(settlesIn.get().toMillis());
      }
      outcome = outcome(key, Optional.of(total), Optional.empty(), start);
    } catch (RuntimeException e) {
      outcome = outcome(key, Optional.empty(), Optional.of(e.getMessage()), start);
    }
    listener.finished(outcome);
    return outcome;
  }

  private TableOutcome outcome(
      TableKey key,
      Optional<ReplicationSummary> summary,
      Optional<String> error,
      long startMillis) {
    return new TableOutcome(
        key.rule(),
        key.table(),
        key.target(),
        summary,
        error,
        Duration.ofMillis(clock.millis() - startMillis));
  }

  private static ReplicationSummary add(ReplicationSummary a, ReplicationSummary b) {
    return ReplicationSummary.builder()
        .versionsApplied(a.versionsApplied() + b.versionsApplied())
        .snapshotsAdded(a.snapshotsAdded() + b.snapshotsAdded())
        .filesCopied(a.filesCopied() + b.filesCopied())
        .bytesCopied(a.bytesCopied() + b.bytesCopied())
        .filesRewritten(a.filesRewritten() + b.filesRewritten())
        .replicaMetadataFiles(
            Stream.concat(a.replicaMetadataFiles().stream(), b.replicaMetadataFiles().stream())
                .toList())
        .skippedVersions(
            Stream.concat(a.skippedVersions().stream(), b.skippedVersions().stream()).toList())
        .lostSnapshots(
            Stream.concat(a.lostSnapshots().stream(), b.lostSnapshots().stream()).toList())
        .settlesIn(b.settlesIn())
        .build();
  }

  /** Keeps each run's summary for its outcome and passes its copying on to the listener. */
  private final class Outcomes implements TableStatus {
    @Override
    public void seen(TableKey key) {}

    @Override
    public boolean known(TableKey key) {
      return false;
    }

    @Override
    public void restored(TableKey key, Observation observed) {}

    @Override
    public void observed(TableKey key, Observation observed) {}

    @Override
    public void succeeded(TableKey key, ReplicationSummary summary, Observation observed) {
      summaries.put(key, summary);
    }

    @Override
    public void progress(TableKey key, CopyProgress progress) {
      listener.copying(key, progress);
    }

    @Override
    public void discovered(String rule) {}

    @Override
    public void discoveryFailed(String rule, String source, RuntimeException error) {}

    @Override
    public void sourceDropped(TableKey key) {}

    // a backfill replicates; it never verifies
    @Override
    public void verified(TableKey key, VerifyReport report) {}

    @Override
    public void verifyFailed(TableKey key, RuntimeException error) {}

    // nor does it promote or fail back
    @Override
    public void promoted(TableKey key, PromotionResult result) {}

    @Override
    public void failedBack(TableKey key, FailbackReport report) {}

    @Override
    public void batchJob(TableKey key, JobProgress job) {
      listener.batchJob(key, job);
    }
  }

  private static final class TableThreads implements ThreadFactory {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "backfill-table-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  }
}
