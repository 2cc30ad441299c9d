package io.icerepl.app.service.status;

import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.Observation;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.engine.worker.TableStatus;
import io.icerepl.app.logging.Redaction;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.icerepl.copier.batch.JobProgress;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.merge.model.TableMetadata;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every known replica's status, and the metrics that mirror it: {@code replicator_lag_seconds}
 * (gauge), {@code replicator_commits_total}, {@code replicator_bytes_copied_total}, {@code
 * replicator_failures_total} (counters), tagged {@code table} (relative path) and {@code target};
 * {@code replicator_failed_tables} (replicas FAILED or DIVERGED), {@code
 * replicator_diverged_tables} (of those, the DIVERGED ones), {@code replicator_split_brain_tables}
 * (OLD_PRIMARY_WROTE) and {@code replicator_failed_discoveries} (rules whose source prefix could
 * not be listed last time); {@code replicator_lanes_refused_total} (tag {@code rule}); {@code
 * replicator_writer_clock_ahead_seconds} ({@link WriterClocks}).
 *
 * <p>Lag is read when asked, not when a run ends, so it grows while a table fails or waits: the age
 * of the oldest source commit the replica lacks when the stores could be read, else the time since
 * the replica was last seen in sync (or, never seen so, since this service started watching the
 * table). A rule whose listing fails counts as lagging since its last successful listing.
 *
 * <p>The board holds the state; {@link ReplicationStates} says which state an outcome means, {@link
 * StatusMeters} registers the meters, {@link StatusLog} says what is logged at which level.
 */
public final class StatusBoard implements TableStatus {
  private final Clock clock;
  private final StatusMeters meters;
  private final Map<TableKey, TableEntry> entries = new ConcurrentHashMap<>();
  private final DiscoveryFailures discoveries;
  private final Set<String> rulesAtLaneLimit = ConcurrentHashMap.newKeySet();
  private final WriterClocks writerClocks;

  /**
   * Judges every table's writers' clocks with {@code replicator.writer-clock-allowance}'s default.
   */
  public StatusBoard(Clock clock, MeterRegistry meters) {
    this(clock, meters, key -> Duration.parse(ReplicatorProperties.WRITER_CLOCK_ALLOWANCE));
  }

  /**
   * @param writerClockAllowance how far ahead of {@code clock} a table's writers may stamp commits
   *     before it is reported ({@link WriterClocks})
   */
  public StatusBoard(
      Clock clock, MeterRegistry meters, Function<TableKey, Duration> writerClockAllowance) {
    this.clock = clock;
    this.meters = new StatusMeters(meters);
    this.writerClocks = new WriterClocks(meters, writerClockAllowance);
    this.discoveries = new DiscoveryFailures(clock.millis());
    this.meters.board(this, discoveries);
  }

  /** Registers a key when first seen, as backfilling until a run says otherwise; a run starts. */
  public void seen(TableKey key) {
    update(key, e -> e.observedThisRun = false);
  }

  /** Whether the key has a status already (restored or from a run). */
  public boolean known(TableKey key) {
    return entries.containsKey(key);
  }

  /**
   * Where a replica stood when the service started, read from the stores before its first run;
   * ignored once a run has reported.
   */
  public void restored(TableKey key, Observation observed) {
    TableEntry e = entry(key);
    synchronized (e) {
      if (e.lastRunAt == null) {
        e.observe(observed, clock.millis());
        e.state = ReplicationStates.of(observed);
      }
    }
  }

  /**
   * Where source and replica stand after a run that failed, when the stores could still be read.
   */
  public void observed(TableKey key, Observation observed) {
    update(
        key,
        e -> {
          e.observe(observed, clock.millis());
          e.observedThisRun = true;
        });
  }

  /** A run succeeded: records what it did and where source and replica stand now. */
  public void succeeded(TableKey key, ReplicationSummary summary, Observation observed) {
    TableEntry e = entry(key);
    e.meters.commits().increment(summary.versionsApplied());
    e.meters.bytes().increment(summary.bytesCopied());
    long now = clock.millis();
    synchronized (e) {
      e.observe(observed, now);
      e.bytesPending = 0;
      e.lastError = null;
      e.lastRunAt = Instant.ofEpochMilli(now);
      e.state = ReplicationStates.of(observed);
    }
  }

  /** A run failed: the specific message and the state it means. */
  public void failed(TableKey key, Exception error, Duration retryIn) {
    TableEntry e = entry(key);
    if (ReplicationStates.isCatalogFailure(error)) {
      meters.catalogFailure(key.rule(), key.target());
    }
    ReplicationState state = ReplicationStates.of(error);
    if (ReplicationStates.countsAsFailure(state)) {
      e.meters.failures().increment();
    }
    // recorded redacted: the status API and health show it as recorded
    String message = redacted(error);
    boolean repeated;
    synchronized (e) {
      repeated = state == e.state && message.equals(e.lastError);
      e.state = state;
      e.lastError = message;
      e.lastRunAt = clock.instant();
      if (error instanceof TableReplicationException t) {
        t.promoted().flatMap(PromotedReplicaException::currentFile).ifPresent(e::primaryAt);
      }
      if (!e.observedThisRun && e.lagSinceMs == null) {
        // the stores could not be read: the replica may be behind since it was last seen in sync
        e.lagSinceMs = e.inSyncAtMs != null ? e.inSyncAtMs : e.watchedSinceMs;
      }
    }
    StatusLog.failed(key, state, message, error, repeated, retryIn);
  }

  /**
   * A table was refused a lane because its rule holds its most lanes: counted in {@code
   * replicator_lanes_refused_total} (tag {@code rule}), logged once per rule.
   */
  public void laneRefused(TableKey key, int maxLanesPerRule) {
    meters.laneRefused(key.rule());
    if (rulesAtLaneLimit.add(key.rule())) {
      StatusLog.ruleAtLaneLimit(key.rule(), maxLanesPerRule);
    }
  }

  /**
   * A verification ended: its report shows in the status and its problem count in {@code
   * replicator_verify_problems} (tags rule, target, table).
   */
  @Override
  public void verified(TableKey key, VerifyReport report) {
    meters.verify(key, update(key, e -> e.lastVerify = report));
    StatusLog.verified(key, report);
  }

  /**
   * A verification could not complete (the source could not be resolved, a catalog was down):
   * counted in {@code replicator_verify_failures_total}; the last completed report stays.
   */
  @Override
  public void verifyFailed(TableKey key, RuntimeException error) {
    meters.verify(key, entry(key)).increment();
    StatusLog.verifyFailed(key, error);
  }

  /**
   * The replica was promoted: it shows as PROMOTED at once, before a run meets the promotion (each
   * run refuses to replicate into it from now on).
   */
  @Override
  public void promoted(TableKey key, PromotionResult result) {
    update(
        key,
        e -> {
          e.state = ReplicationState.PROMOTED;
          e.lastError = null;
          e.primaryAt(result.metadataFile());
        });
    StatusLog.promoted(key, result);
  }

  /** The promoted replica was failed back: the report shows in the status. */
  @Override
  public void failedBack(TableKey key, FailbackReport report) {
    update(key, e -> e.lastFailback = report);
    StatusLog.failedBack(key, report);
  }

  /** The rule's source prefix was listed. */
  public void discovered(String rule) {
    discoveries.listed(rule, clock.millis());
  }

  @Override
  public void sourceDropped(TableKey key) {
    TableEntry e = entry(key);
    String message =
        "The source catalog no longer lists "
            + key.sourceTable().orElse(key.table())
            + "; its replica "
            + key.targetLocation()
            + " is kept as it was and no longer replicated";
    boolean first;
    synchronized (e) {
      first = e.state != ReplicationState.SOURCE_DROPPED;
      e.state = ReplicationState.SOURCE_DROPPED;
      e.lastError = message;
    }
    if (first) {
      StatusLog.sourceDropped(key, message);
    }
  }

  /**
   * The rule's source prefix could not be listed: its tables are not reconciled, new ones not
   * found.
   */
  public void discoveryFailed(String rule, String source, RuntimeException error) {
    if (ReplicationStates.isCatalogFailure(error)) {
      meters.catalogFailure(rule, "");
    }
    String message = redacted(error);
    boolean again = discoveries.failed(rule, message).filter(message::equals).isPresent();
    StatusLog.discoveryFailed(rule, source, error, message, again);
  }

  /** The rules whose last listing failed, with the error. */
  public Map<String, String> failedDiscoveries() {
    return discoveries.messages();
  }

  /** Replicas FAILED or DIVERGED. */
  public int failedTables() {
    return count(ReplicationStates::needsOperator);
  }

  /** Replicas DIVERGED. */
  public int divergedTables() {
    return count(state -> state == ReplicationState.DIVERGED);
  }

  /** Replicas OLD_PRIMARY_WROTE: the old primary wrote after a failover. */
  public int splitBrainTables() {
    return count(ReplicationStates::splitBrain);
  }

  private int count(Predicate<ReplicationState> in) {
    return (int) all().stream().filter(s -> in.test(s.state())).count();
  }

  /** The largest lag of any replica, or of a rule whose listing fails (since it last succeeded). */
  public long maxLagSeconds() {
    long now = clock.millis();
    long tables = entries.values().stream().mapToLong(e -> e.lagSeconds(now)).max().orElse(0);
    return Math.max(tables, discoveries.maxLagSeconds(now));
  }

  /** Copy progress of a running commit: what is still to copy shows as {@code bytesPending}. */
  public void progress(TableKey key, CopyProgress progress) {
    update(key, e -> e.bytesPending = progress.bytesPending());
  }

  /** Where the S3 Batch Operations job of the key's backfill stands. */
  @Override
  public void batchJob(TableKey key, JobProgress job) {
    ReplicationStatus.BatchJob batchJob =
        new ReplicationStatus.BatchJob(
            job.jobId(), job.status(), job.succeeded(), job.failed(), job.total());
    update(key, e -> e.batchJob = batchJob);
  }

  @Override
  public void sourceRead(TableKey key, TableMetadata source, long readByMs) {
    writerClocks.read(key, source, readByMs);
  }

  public List<ReplicationStatus> all() {
    long now = clock.millis();
    return entries.entrySet().stream()
        .map(en -> en.getValue().status(en.getKey(), now, writerClocks.of(en.getKey())))
        .sorted(
            Comparator.comparing(ReplicationStatus::target).thenComparing(ReplicationStatus::table))
        .toList();
  }

  public Optional<ReplicationStatus> get(TableKey key) {
    return Optional.ofNullable(entries.get(key))
        .map(e -> e.status(key, clock.millis(), writerClocks.of(key)));
  }

  /** The lane of a table of {@code target} by its path under the prefixes ({@code ns/orders}). */
  public Optional<TableKey> findTable(String target, String table) {
    return entries.keySet().stream()
        .filter(k -> k.target().equals(target) && k.table().equals(table))
        .findFirst();
  }

  /** The key of a target's table given by its namespace (levels joined with U+001F) and name. */
  public Optional<TableKey> find(String target, String namespace, String table) {
    return entries.keySet().stream()
        .filter(
            k ->
                k.target().equals(target)
                    && k.namespace().equals(namespace)
                    && k.name().equals(table))
        .findFirst();
  }

  private static String redacted(Exception error) {
    return Redaction.apply(error.getMessage() != null ? error.getMessage() : error.toString());
  }

  /** Changes the key's entry under its monitor, registering it when first seen. */
  private TableEntry update(TableKey key, Consumer<TableEntry> change) {
    TableEntry e = entry(key);
    synchronized (e) {
      change.accept(e);
    }
    return e;
  }

  private TableEntry entry(TableKey key) {
    return entries.computeIfAbsent(key, this::newEntry);
  }

  private TableEntry newEntry(TableKey key) {
    TableEntry e = new TableEntry(meters.table(key), clock.millis());
    meters.lag(key, e, en -> en.lagSeconds(clock.millis()));
    return e;
  }
}
