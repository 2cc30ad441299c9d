package io.icerepl.app.service.status;

import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * The cuts of {@code replicator.groups}, from the replicas as they are (each records since when it
 * is known current), for the status API and the {@code replicator_group_cut_lag_seconds} and {@code
 * replicator_group_failover_loss_seconds} gauges (one per group; NaN while the group has no cut).
 */
@Component
public class GroupCuts {
  /** A scrape reads the replicas at most this often; the API always reads them. */
  static final Duration METRIC_REFRESH = Duration.ofSeconds(15);

  private final StatusBoard board;
  private final ReplicatorProperties properties;
  private final GroupCutReader reader;
  private final Clock clock;
  private final GroupWork work;
  private final Map<String, Cached> cached = new ConcurrentHashMap<>();

  private record Cached(long atMs, GroupCutReader.Report report) {}

  public GroupCuts(
      StatusBoard board,
      ReplicatorProperties properties,
      GroupCutReader reader,
      ObjectProvider<Clock> clock,
      MeterRegistry meters,
      GroupWork work) {
    this.board = board;
    this.properties = properties;
    this.reader = reader;
    this.clock = clock.getIfAvailable(Clock::systemUTC);
    this.work = work;
    for (ReplicatorProperties.Group group : properties.groups()) {
      Gauge.builder("replicator.group.cut.lag", this, cuts -> cuts.cutLagSeconds(group))
          .description("How far a replication group's cut is behind now; NaN without a cut")
          .tag("group", group.name())
          .baseUnit("seconds")
          .register(meters);
      Gauge.builder("replicator.group.failover.loss", this, cuts -> cuts.lossWindowSeconds(group))
          .description(
              "What a consistent failover of the group now would lose: the time from the cut it"
                  + " would promote at to now; NaN without a cut")
          .tag("group", group.name())
          .baseUnit("seconds")
          .register(meters);
    }
  }

  public List<GroupCutReader.Report> all() {
    return properties.groups().stream().map(this::report).toList();
  }

  public Optional<GroupCutReader.Report> get(String name) {
    return properties.groups().stream()
        .filter(group -> group.name().equals(name))
        .findFirst()
        .map(this::report);
  }

  /**
   * The group's cut read on {@link GroupWork}: a read that hangs answers unread at its deadline.
   */
  private GroupCutReader.Report report(ReplicatorProperties.Group group) {
    try {
      return work.read(group.name(), () -> read(group).report());
    } catch (TimeoutException e) {
      return unread(group);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unread(group);
    }
  }

  private static GroupCutReader.Report unread(ReplicatorProperties.Group group) {
    return new GroupCutReader.Report(
        group.name(),
        group.ref(),
        null,
        null,
        null,
        null,
        null,
        "its replicas were not read within "
            + GroupWork.DEADLINE
            + ": a read of them hangs (the health's groups component names it)",
        group.clockSkew(),
        group.tables().stream()
            .map(table -> new GroupCutReader.TableAtCut(table, null, null))
            .toList(),
        null);
  }

  /**
   * A group's cut as read now, with the tables' lanes (empty for a table not found) and the moment
   * its cut tag names.
   */
  record Read(
      List<Optional<TableKey>> keys, GroupCutReader.Report report, OptionalLong tagMomentMs) {}

  /**
   * The group's cut from its replicas as they are: since when each is known current is the
   * replica's own record, so a restarted service, or the command line with no service, computes the
   * same cut.
   */
  Read read(ReplicatorProperties.Group group) {
    List<Optional<TableKey>> keys =
        group.tables().stream().map(table -> board.findTable(group.target(), table)).toList();
    List<GroupCutReader.Member> members = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      members.add(GroupCutReader.Member.of(group.tables().get(i), keys.get(i)));
    }
    GroupCutReader.Reading reading =
        reader.read(
            group.name(),
            group.ref(),
            members,
            group.clockSkew(),
            group.transactionWindow(),
            clock.instant());
    cached.put(group.name(), new Cached(clock.millis(), reading.report()));
    return new Read(keys, reading.report(), reading.tagMomentMs());
  }

  private double cutLagSeconds(ReplicatorProperties.Group group) {
    GroupCutReader.Report report = recent(group);
    if (report.cut() == null) {
      return Double.NaN;
    }
    // the lag grows while the cut stands still, between reads of the replicas too
    return Math.max(0, clock.millis() - report.cut().toEpochMilli()) / 1000.0;
  }

  private double lossWindowSeconds(ReplicatorProperties.Group group) {
    Cached last = cached.get(group.name());
    GroupCutReader.Report report = recent(group);
    if (report.lossWindowSeconds() == null) {
      return Double.NaN;
    }
    // the window grows while the cut stands still, between reads of the replicas too
    long readAt = last == null ? clock.millis() : last.atMs();
    return report.lossWindowSeconds() + Math.max(0, clock.millis() - readAt) / 1000.0;
  }

  private GroupCutReader.Report recent(ReplicatorProperties.Group group) {
    Cached last = cached.get(group.name());
    return last != null && clock.millis() - last.atMs() < METRIC_REFRESH.toMillis()
        ? last.report()
        : report(group);
  }
}
