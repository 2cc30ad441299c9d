package io.icerepl.app.service.status;

import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.catalog.CatalogException;
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
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.model.TableMetadata;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class StatusBoard implements TableStatus {
  private static final Logger LOG = LoggerFactory.getLogger(StatusBoard.class);

  private final Clock clock;
  private final MeterRegistry meters;
  private final long startedMs;
  private final Map<TableKey, Entry> entries = new ConcurrentHashMap<>();
  private final Map<String, DiscoveryFailure> discoveryFailures = new ConcurrentHashMap<>();
  private final Map<String, Long> discoveredAtMs = new ConcurrentHashMap<>();
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
    this.meters = meters;
    this.writerClocks = new WriterClocks(meters, writerClockAllowance);
    this.startedMs = clock.millis();
    Gauge.builder("replicator.failed.tables", this, StatusBoard::failedTables)
        .description("Replicas FAILED or DIVERGED: they need an operator")
        .register(meters);
    // a DIVERGED replica is never retried into shape, unlike a FAILED one: alerts tell them apart
    Gauge.builder("replicator.diverged.tables", this, StatusBoard::divergedTables)
        .description(
            "Replicas DIVERGED: changed behind the replicator's back, left alone until repaired")
        .register(meters);
    // an old primary that wrote after failover is not a failure of the replica, but two writers
    Gauge.builder("replicator.split.brain.tables", this, StatusBoard::splitBrainTables)
        .description("Replicas OLD_PRIMARY_WROTE: the old primary wrote after a failover")
        .register(meters);
    Gauge.builder("replicator.failed.discoveries", discoveryFailures, Map::size)
        .description("Rules whose source prefix could not be listed at the last reconciliation")
        .register(meters);
  }

  /** Registers a key when first seen, as backfilling until a run says otherwise; a run starts. */
  public void seen(TableKey key) {
    Entry e = entry(key);
    synchronized (e) {
      e.observedThisRun = false;
    }
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
    Entry e = entry(key);
    synchronized (e) {
      if (e.lastRunAt == null) {
        e.observe(observed, clock.millis());
        e.state = stateOf(observed);
      }
    }
  }

  /**
   * Where source and replica stand after a run that failed, when the stores could still be read.
   */
  public void observed(TableKey key, Observation observed) {
    Entry e = entry(key);
    synchronized (e) {
      e.observe(observed, clock.millis());
      e.observedThisRun = true;
    }
  }

  /** A run succeeded: records what it did and where source and replica stand now. */
  public void succeeded(TableKey key, ReplicationSummary summary, Observation observed) {
    Entry e = entry(key);
    e.commits.increment(summary.versionsApplied());
    e.bytes.increment(summary.bytesCopied());
    long now = clock.millis();
    synchronized (e) {
      e.observe(observed, now);
      e.bytesPending = 0;
      e.lastError = null;
      e.lastRunAt = Instant.ofEpochMilli(now);
      e.state = stateOf(observed);
    }
  }

  /** A run failed: the specific message and the state it means. */
  public void failed(TableKey key, Exception error, Duration retryIn) {
    Entry e = entry(key);
    if (isCatalogFailure(error)) {
      catalogFailure(key.rule(), key.target());
    }
    ReplicationState state = stateOf(error);
    boolean promoted = isPrimary(state);
    if (state != ReplicationState.WAITING && !promoted) {
      e.failures.increment();
    }
    // recorded redacted: the status API and health show it as recorded
    String message =
        Redaction.apply(error.getMessage() != null ? error.getMessage() : error.toString());
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
    if (repeated && waitsForAnOperator(state)) {
      // said at WARN when it changed: every retry repeating it would bury it
      LOG.debug("{}: still {} on {}: {}", key.table(), state, key.target(), message);
    } else if (waitsForAnOperator(state)) {
      LOG.warn(
          "{}: {} on {}, an operator must act (the replica is not written): {}",
          key.table(),
          state,
          key.target(),
          message);
    } else if (promoted) {
      if (repeated) {
        LOG.debug("{}: not replicated to {} ({}): {}", key.table(), key.target(), state, message);
      } else {
        LOG.info("{}: not replicated to {} ({}): {}", key.table(), key.target(), state, message);
      }
    } else if (state == ReplicationState.WAITING) {
      LOG.info(
          "{}: waiting for {}, trying again in {}: {}",
          key.table(),
          key.target(),
          retryIn,
          message);
    } else if (repeated) {
      // the stack trace was logged when this error first appeared
      LOG.warn(
          "{}: replication to {} failed again ({}), trying again in {}: {}",
          key.table(),
          key.target(),
          state,
          retryIn,
          message);
    } else {
      LOG.warn(
          "{}: replication to {} failed ({}), trying again in {}",
          key.table(),
          key.target(),
          state,
          retryIn,
          error);
    }
  }

  /**
   * A table was refused a lane because its rule holds its most lanes: counted in {@code
   * replicator_lanes_refused_total} (tag {@code rule}), logged once per rule.
   */
  public void laneRefused(TableKey key, int maxLanesPerRule) {
    Counter.builder("replicator.lanes.refused")
        .description(
            "Tables refused a lane because their rule holds replicator.limits.lanes-per-rule")
        .tag("rule", key.rule())
        .register(meters)
        .increment();
    if (rulesAtLaneLimit.add(key.rule())) {
      LOG.warn(
          "{}: rule holds its most lanes ({}); tables beyond them are not replicated (replicator.limits"
              + ".lanes-per-rule)",
          key.rule(),
          maxLanesPerRule);
    }
  }

  /**
   * A verification ended: its report shows in the status and its problem count in {@code
   * replicator_verify_problems} (tags rule, target, table).
   */
  @Override
  public void verified(TableKey key, VerifyReport report) {
    Entry e = entry(key);
    synchronized (e) {
      e.lastVerify = report;
    }
    verifyMeters(key, e);
    if (report.problems() == 0) {
      LOG.info(
          "{}: replica {} verified, {} checked, no problem",
          key.table(),
          key.targetLocation(),
          report.checked());
    } else {
      LOG.warn(
          "{}: replica {} verified, {} checked, {} problems, first: {}",
          key.table(),
          key.targetLocation(),
          report.checked(),
          report.problems(),
          report.firstProblems().get(0));
    }
  }

  /**
   * A verification could not complete (the source could not be resolved, a catalog was down):
   * counted in {@code replicator_verify_failures_total}; the last completed report stays.
   */
  @Override
  public void verifyFailed(TableKey key, RuntimeException error) {
    verifyMeters(key, entry(key)).increment();
    LOG.warn("{}: verification of replica {} failed", key.table(), key.targetLocation(), error);
  }

  /** Registers the key's verification meters the first time it is verified. */
  private Counter verifyMeters(TableKey key, Entry e) {
    Tags tags = Tags.of("rule", key.rule(), "target", key.target(), "table", key.table());
    Gauge.builder("replicator.verify.problems", e, Entry::lastVerifyProblems)
        .description("Problems the last verification of the replica found (NaN before one)")
        .tags(tags)
        .register(meters);
    return Counter.builder("replicator.verify.failures")
        .description("Verifications of the replica that could not complete")
        .tags(tags)
        .register(meters);
  }

  /**
   * The replica was promoted: it shows as PROMOTED at once, before a run meets the promotion (each
   * run refuses to replicate into it from now on).
   */
  @Override
  public void promoted(TableKey key, PromotionResult result) {
    Entry e = entry(key);
    Promotion promotion = result.promotion();
    synchronized (e) {
      e.state = ReplicationState.PROMOTED;
      e.lastError = null;
      e.primaryAt(result.metadataFile());
    }
    LOG.info(
        "{}: replica {} {}promoted, epoch {}, mode {}, version {}; no longer replicated into",
        key.table(),
        key.targetLocation(),
        result.alreadyPromoted() ? "already " : "",
        promotion.epoch(),
        promotion.mode(),
        promotion.replicaVersion());
  }

  /** The promoted replica was failed back: the report shows in the status. */
  @Override
  public void failedBack(TableKey key, FailbackReport report) {
    Entry e = entry(key);
    synchronized (e) {
      e.lastFailback = report;
    }
    LOG.info(
        "{}: replica {} failed back into {}, orphan commits kept as {}",
        key.table(),
        key.targetLocation(),
        report.originalLocation(),
        report.orphanTags());
  }

  /** The rule's source prefix was listed. */
  public void discovered(String rule) {
    discoveredAtMs.put(rule, clock.millis());
    discoveryFailures.remove(rule);
  }

  @Override
  public void sourceDropped(TableKey key) {
    Entry e = entry(key);
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
      LOG.warn("{}: {}", key.table(), message);
    }
  }

  /**
   * The rule's source prefix could not be listed: its tables are not reconciled, new ones not
   * found.
   */
  public void discoveryFailed(String rule, String source, RuntimeException error) {
    if (isCatalogFailure(error)) {
      catalogFailure(rule, "");
    }
    String message =
        Redaction.apply(error.getMessage() != null ? error.getMessage() : error.toString());
    DiscoveryFailure previous =
        discoveryFailures.put(
            rule, new DiscoveryFailure(message, discoveredAtMs.getOrDefault(rule, startedMs)));
    if (previous != null && previous.message().equals(message)) {
      LOG.warn("{}: cannot discover tables under {} again: {}", rule, source, message);
    } else {
      LOG.warn("{}: cannot discover tables under {}", rule, source, error);
    }
  }

  /** Whether a catalog was down, refused or answered with an error somewhere in the cause chain. */
  private static boolean isCatalogFailure(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof CatalogException) {
        return true;
      }
    }
    return false;
  }

  private void catalogFailure(String rule, String target) {
    Counter.builder("replicator.catalog.failures")
        .description(
            "Runs and discoveries that failed because a source or target catalog was down,"
                + " refused or answered with an error")
        .tag("rule", rule)
        .tag("target", target)
        .register(meters)
        .increment();
  }

  /** The rules whose last listing failed, with the error. */
  public Map<String, String> failedDiscoveries() {
    Map<String, String> failed = new TreeMap<>();
    discoveryFailures.forEach((rule, failure) -> failed.put(rule, failure.message()));
    return failed;
  }

  /** Replicas FAILED or DIVERGED. */
  public int failedTables() {
    return (int) all().stream().filter(s -> needsOperator(s.state())).count();
  }

  /** Replicas DIVERGED. */
  public int divergedTables() {
    return (int) all().stream().filter(s -> s.state() == ReplicationState.DIVERGED).count();
  }

  /** The largest lag of any replica, or of a rule whose listing fails (since it last succeeded). */
  public long maxLagSeconds() {
    long now = clock.millis();
    long tables = entries.values().stream().mapToLong(e -> e.lagSeconds(now)).max().orElse(0);
    long rules =
        discoveryFailures.values().stream()
            .mapToLong(f -> secondsSince(f.listedAtMs(), now))
            .max()
            .orElse(0);
    return Math.max(tables, rules);
  }

  /** Replicas OLD_PRIMARY_WROTE: the old primary wrote after a failover. */
  public int splitBrainTables() {
    return (int) all().stream().filter(s -> splitBrain(s.state())).count();
  }

  /**
   * Two primaries: the old one wrote after a failover, while the promoted table serves. Not a
   * failure of the replica, and nothing retries it into shape.
   */
  static boolean splitBrain(ReplicationState state) {
    return state == ReplicationState.OLD_PRIMARY_WROTE;
  }

  /**
   * A promoted replica, a primary: its writers' version is its current one, and it does not lag
   * behind a source it no longer follows.
   */
  static boolean isPrimary(ReplicationState state) {
    return state == ReplicationState.PROMOTED
        || state == ReplicationState.OLD_PRIMARY_WROTE
        || state == ReplicationState.FAILED_BACK;
  }

  /** States no retry changes: said at WARN when they start, not at every retry. */
  private static boolean waitsForAnOperator(ReplicationState state) {
    return splitBrain(state) || state == ReplicationState.DIVERGED;
  }

  static boolean needsOperator(ReplicationState state) {
    return state == ReplicationState.FAILED || state == ReplicationState.DIVERGED;
  }

  /** Copy progress of a running commit: what is still to copy shows as {@code bytesPending}. */
  public void progress(TableKey key, io.icerepl.copier.copy.CopyProgress progress) {
    Entry e = entry(key);
    synchronized (e) {
      e.bytesPending = progress.bytesPending();
    }
  }

  /** Where the S3 Batch Operations job of the key's backfill stands. */
  @Override
  public void batchJob(TableKey key, JobProgress job) {
    Entry e = entry(key);
    synchronized (e) {
      e.batchJob =
          new ReplicationStatus.BatchJob(
              job.jobId(), job.status(), job.succeeded(), job.failed(), job.total());
    }
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

  /** The key of a target's table given by its namespace (levels joined with U+001F) and name. */
  /** The lane of a table of {@code target} by its path under the prefixes ({@code ns/orders}). */
  public Optional<TableKey> findTable(String target, String table) {
    return entries.keySet().stream()
        .filter(k -> k.target().equals(target) && k.table().equals(table))
        .findFirst();
  }

  public Optional<TableKey> find(String target, String namespace, String table) {
    return entries.keySet().stream()
        .filter(
            k ->
                k.target().equals(target)
                    && k.namespace().equals(namespace)
                    && k.name().equals(table))
        .findFirst();
  }

  static ReplicationState stateOf(Exception error) {
    if (error instanceof TableReplicationException t && t.promoted().isPresent()) {
      return switch (t.promoted().get().fence()) {
        case PROMOTED -> ReplicationState.PROMOTED;
        // the roles reversed as asked: nothing is wrong
        case FAILED_BACK -> ReplicationState.FAILED_BACK;
        // written on behind the source's back since the last fail-back: someone must act
        case DIVERGED_AFTER_PROMOTION -> ReplicationState.DIVERGED;
        default -> ReplicationState.OLD_PRIMARY_WROTE;
      };
    }
    Throwable cause = error instanceof TableReplicationException t ? t.getCause() : error;
    if (cause instanceof ReplicationException r && r.retryable()) {
      return ReplicationState.WAITING;
    }
    if (cause instanceof DivergedReplicaException) {
      return ReplicationState.DIVERGED;
    }
    return ReplicationState.FAILED;
  }

  private static ReplicationState stateOf(Observation observed) {
    return observed.replicaMetadataFile() == null
        ? ReplicationState.BACKFILLING
        : observed.inSync() ? ReplicationState.IN_SYNC : ReplicationState.LAGGING;
  }

  private static long secondsSince(long ms, long now) {
    return Math.max(0, (now - ms) / 1000);
  }

  private Entry entry(TableKey key) {
    return entries.computeIfAbsent(key, this::newEntry);
  }

  private Entry newEntry(TableKey key) {
    Tags tags = Tags.of("table", key.table(), "target", key.target());
    Entry e =
        new Entry(
            Counter.builder("replicator.commits")
                .description("Replica commits made")
                .tags(tags)
                .register(meters),
            Counter.builder("replicator.bytes.copied")
                .description("Bytes copied to replicas")
                .tags(tags)
                .register(meters),
            Counter.builder("replicator.failures")
                .description("Failed replication runs")
                .tags(tags)
                .register(meters),
            clock.millis());
    Gauge.builder("replicator.lag.seconds", e, en -> en.lagSeconds(clock.millis()))
        .description("Seconds since the oldest source commit the replica lacks; 0 when in sync")
        .tags(tags)
        .register(meters);
    return e;
  }

  /**
   * @param listedAtMs when the rule's source was last listed (or the service started)
   */
  private record DiscoveryFailure(String message, long listedAtMs) {}

  private static final class Entry {
    final Counter commits;
    final Counter bytes;
    final Counter failures;
    final long watchedSinceMs;
    ReplicationState state = ReplicationState.BACKFILLING;
    Observation observed;

    /** Since when the replica lacks a source commit; null when in sync. */
    Long lagSinceMs;

    /** When the replica was last seen in sync; null before. */
    Long inSyncAtMs;

    /** Since when every source commit made before is known in the replica; null before. */

    /** A promoted replica's current metadata file, as its promotion or last fence read it. */
    String primaryFile;

    /** Whether the running (or last) run read where source and replica stand. */
    boolean observedThisRun;

    String lastError;
    Instant lastRunAt;
    long bytesPending;
    VerifyReport lastVerify;
    FailbackReport lastFailback;
    ReplicationStatus.BatchJob batchJob;

    Entry(Counter commits, Counter bytes, Counter failures, long watchedSinceMs) {
      this.commits = commits;
      this.bytes = bytes;
      this.failures = failures;
      this.watchedSinceMs = watchedSinceMs;
      this.lagSinceMs = watchedSinceMs;
    }

    void observe(Observation o, long now) {
      observed = o;
      if (o.inSync()) {
        lagSinceMs = null;
        inSyncAtMs = now;
      } else {
        lagSinceMs = o.oldestUnreplicatedMs();
      }
    }

    synchronized double lastVerifyProblems() {
      return lastVerify == null ? Double.NaN : lastVerify.problems();
    }

    void primaryAt(String file) {
      primaryFile = file;
    }

    synchronized long lagSeconds(long now) {
      return lagSinceMs == null || isPrimary(state) ? 0 : secondsSince(lagSinceMs, now);
    }

    synchronized ReplicationStatus status(
        TableKey key, long now, Optional<WriterClocks.Finding> writerClock) {
      Observation o = observed;
      return new ReplicationStatus(
          key.rule(),
          key.target(),
          key.table(),
          state,
          key.sourceLocation(),
          key.targetLocation(),
          key.sourceTable().orElse(null),
          key.replicaTable().orElse(null),
          o == null ? null : o.replicatedSourceFile(),
          o == null || o.replicatedSourceUpdatedMs() == null
              ? null
              : Instant.ofEpochMilli(o.replicatedSourceUpdatedMs()),
          isPrimary(state) && primaryFile != null
              ? primaryFile
              : o == null ? null : o.replicaMetadataFile(),
          lagSeconds(now),
          o == null || isPrimary(state) ? 0 : o.lagSnapshots(),
          bytesPending,
          lastError,
          lastRunAt,
          (long) commits.count(),
          (long) bytes.count(),
          lastVerify,
          lastFailback,
          batchJob,
          writerClock.map(WriterClocks.Finding::seconds).orElse(0.0),
          writerClock.map(WriterClocks.Finding::note).orElse(null));
    }
  }
}
