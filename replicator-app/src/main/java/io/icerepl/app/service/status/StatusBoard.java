package io.icerepl.app.service.status;

import io.icerepl.app.replicate.ReplicationSummary;
import io.icerepl.app.replicate.TableReplicationException;
import io.icerepl.app.service.worker.TableKey;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.error.ReplicationException;
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
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every known replica's status, and the metrics that mirror it: {@code replicator_lag_seconds}
 * (gauge), {@code replicator_commits_total}, {@code replicator_bytes_copied_total},
 * {@code replicator_failures_total} (counters), tagged {@code table} (relative path) and
 * {@code target}.
 */
public final class StatusBoard {
  private static final Logger LOG = LoggerFactory.getLogger(StatusBoard.class);

  private final Clock clock;
  private final MeterRegistry meters;
  private final Map<TableKey, Entry> entries = new ConcurrentHashMap<>();

  public StatusBoard(Clock clock, MeterRegistry meters) {
    this.clock = clock;
    this.meters = meters;
  }

  /** Registers a key when first seen, as backfilling until a run says otherwise. */
  public void seen(TableKey key) {
    entry(key);
  }

  /** A run succeeded: records what it did and where source and replica stand now. */
  public void succeeded(TableKey key, ReplicationSummary summary, Observation observed) {
    Entry e = entry(key);
    e.commits.increment(summary.versionsApplied());
    e.bytes.increment(summary.bytesCopied());
    long now = clock.millis();
    synchronized (e) {
      e.observed = observed;
      e.bytesPending = 0;
      e.lastError = null;
      e.lastRunAt = Instant.ofEpochMilli(now);
      e.state =
          observed.replicaMetadataFile() == null
              ? ReplicationState.BACKFILLING
              : observed.inSync() ? ReplicationState.IN_SYNC : ReplicationState.LAGGING;
      e.lagSeconds = observed.inSync() ? 0 : Math.max(0, (now - observed.oldestUnreplicatedMs()) / 1000);
    }
  }

  /** A run failed: the specific message and the state it means. */
  public void failed(TableKey key, Exception error, Duration retryIn) {
    Entry e = entry(key);
    ReplicationState state = stateOf(error);
    if (state != ReplicationState.WAITING) {
      e.failures.increment();
    }
    String message = error.getMessage() != null ? error.getMessage() : error.toString();
    boolean repeated;
    synchronized (e) {
      repeated = state == e.state && message.equals(e.lastError);
      e.state = state;
      e.lastError = message;
      e.lastRunAt = clock.instant();
      if (e.observed != null && !e.observed.inSync()) {
        e.lagSeconds = Math.max(0, (clock.millis() - e.observed.oldestUnreplicatedMs()) / 1000);
      }
    }
    if (state == ReplicationState.WAITING) {
      LOG.info("{}: waiting for {}, trying again in {}: {}", key.table(), key.target(), retryIn, message);
    } else if (repeated) {
      // the stack trace was logged when this error first appeared
      LOG.warn("{}: replication to {} failed again ({}), trying again in {}: {}", key.table(), key.target(), state,
          retryIn, message);
    } else {
      LOG.warn("{}: replication to {} failed ({}), trying again in {}", key.table(), key.target(), state, retryIn, error);
    }
  }

  /** Copy progress of a running commit: what is still to copy shows as {@code bytesPending}. */
  public void progress(TableKey key, io.icerepl.copier.commit.CopyProgress progress) {
    Entry e = entry(key);
    synchronized (e) {
      e.bytesPending = progress.bytesPending();
    }
  }

  public List<ReplicationStatus> all() {
    return entries.entrySet().stream()
        .map(en -> en.getValue().status(en.getKey()))
        .sorted(Comparator.comparing(ReplicationStatus::target).thenComparing(ReplicationStatus::table))
        .toList();
  }

  public Optional<ReplicationStatus> get(TableKey key) {
    return Optional.ofNullable(entries.get(key)).map(e -> e.status(key));
  }

  /** The key of a target's table given by its namespace (levels joined with U+001F) and name. */
  public Optional<TableKey> find(String target, String namespace, String table) {
    return entries.keySet().stream()
        .filter(k -> k.target().equals(target) && k.namespace().equals(namespace) && k.name().equals(table))
        .findFirst();
  }

  static ReplicationState stateOf(Exception error) {
    Throwable cause = error instanceof TableReplicationException t ? t.getCause() : error;
    if (cause instanceof ReplicationException r && r.retryable()) {
      return ReplicationState.WAITING;
    }
    if (cause instanceof DivergedReplicaException) {
      return ReplicationState.DIVERGED;
    }
    return ReplicationState.FAILED;
  }

  private Entry entry(TableKey key) {
    return entries.computeIfAbsent(key, this::newEntry);
  }

  private Entry newEntry(TableKey key) {
    Tags tags = Tags.of("table", key.table(), "target", key.target());
    Entry e =
        new Entry(
            Counter.builder("replicator.commits").description("Replica commits made").tags(tags).register(meters),
            Counter.builder("replicator.bytes.copied").description("Bytes copied to replicas").tags(tags).register(meters),
            Counter.builder("replicator.failures").description("Failed replication runs").tags(tags).register(meters));
    Gauge.builder("replicator.lag.seconds", e, Entry::lagSeconds)
        .description("Seconds since the oldest source commit the replica lacks; 0 when in sync")
        .tags(tags)
        .register(meters);
    return e;
  }

  private static final class Entry {
    final Counter commits;
    final Counter bytes;
    final Counter failures;
    ReplicationState state = ReplicationState.BACKFILLING;
    Observation observed;
    long lagSeconds;
    String lastError;
    Instant lastRunAt;
    long bytesPending;

    Entry(Counter commits, Counter bytes, Counter failures) {
      this.commits = commits;
      this.bytes = bytes;
      this.failures = failures;
    }

    synchronized double lagSeconds() {
      return lagSeconds;
    }

    synchronized ReplicationStatus status(TableKey key) {
      Observation o = observed;
      return new ReplicationStatus(
          key.rule(),
          key.target(),
          key.table(),
          state,
          key.sourceLocation(),
          key.targetLocation(),
          o == null ? null : o.sourceMetadataFile(),
          o == null ? null : Instant.ofEpochMilli(o.sourceUpdatedMs()),
          o == null ? null : o.replicaMetadataFile(),
          lagSeconds,
          o == null ? 0 : o.lagSnapshots(),
          bytesPending,
          lastError,
          lastRunAt,
          (long) commits.count(),
          (long) bytes.count());
    }
  }
}
