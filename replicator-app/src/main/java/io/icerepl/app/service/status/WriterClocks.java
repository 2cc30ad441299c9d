package io.icerepl.app.service.status;

import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.merge.group.WriterClock;
import io.icerepl.merge.model.TableMetadata;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each table's writers' clocks as its last run found them ({@link WriterClock}): a stamp ahead of
 * the service's clock by more than the table's allowance is logged at WARN when first found (again
 * only after a run found the table's stamps within it), shown in the table's status and in the
 * {@code replicator_writer_clock_ahead_seconds} gauge (tags {@code table}, {@code target}; 0 when
 * within the allowance). A group's cut is only as right as its writers' clocks. A table whose
 * source did not change is not read again, so its last finding stands until its next run.
 */
final class WriterClocks {
  private static final Logger LOG = LoggerFactory.getLogger(WriterClocks.class);

  private final MeterRegistry meters;
  private final Function<TableKey, Duration> allowance;
  private final Map<TableKey, Optional<Finding>> found = new ConcurrentHashMap<>();

  /** A stamp ahead, with the allowance it broke. */
  record Finding(WriterClock.Ahead ahead, Duration allowance) {
    double seconds() {
      return ahead.by().toMillis() / 1000.0;
    }

    /** What the status and the log say: what is ahead, by how much, and what to do. */
    String note() {
      String stamped =
          ahead.snapshotId().isPresent()
              ? "snapshot " + ahead.snapshotId().getAsLong() + " is stamped "
              : "the metadata's last-updated-ms is ";
      return "the writer's clock runs ahead of the replicator's: "
          + stamped
          + Instant.ofEpochMilli(ahead.stampedMs())
          + ", "
          + String.format(Locale.ROOT, "%.3f", seconds())
          + " s after the replicator read it (allowance "
          + allowance
          + "), so a group's cut may leave out a commit made before it; synchronise the writer's"
          + " clock (NTP)";
    }
  }

  /**
   * @param allowance how far ahead a table's writers may stamp commits
   */
  WriterClocks(MeterRegistry meters, Function<TableKey, Duration> allowance) {
    this.meters = meters;
    this.allowance = allowance;
  }

  void read(TableKey key, TableMetadata source, long readByMs) {
    Duration allowed = allowance.apply(key);
    Optional<Finding> now =
        WriterClock.ahead(source, readByMs, allowed).map(ahead -> new Finding(ahead, allowed));
    Optional<Finding> before = found.put(key, now);
    if (before == null) {
      Gauge.builder("replicator.writer.clock.ahead", this, clocks -> clocks.seconds(key))
          .description(
              "How far ahead of the replicator's clock the table's writer stamped a commit, beyond"
                  + " the allowance; 0 within it")
          .tags(Tags.of("table", key.table(), "target", key.target()))
          .baseUnit("seconds")
          .register(meters);
    }
    boolean wasAhead = before != null && before.isPresent();
    if (now.isPresent() && !wasAhead) {
      LOG.warn("{}: on {}, {}", key.table(), key.target(), now.get().note());
    } else if (now.isEmpty() && wasAhead) {
      LOG.info(
          "{}: on {}, the writer's stamps are within {} of the replicator's clock again",
          key.table(),
          key.target(),
          allowed);
    }
  }

  /** What the table's last run found ahead; empty when its stamps were within the allowance. */
  Optional<Finding> of(TableKey key) {
    return found.getOrDefault(key, Optional.empty());
  }

  private double seconds(TableKey key) {
    return of(key).map(Finding::seconds).orElse(0.0);
  }
}
