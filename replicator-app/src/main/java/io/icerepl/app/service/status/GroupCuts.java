package io.icerepl.app.service.status;

import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.service.config.ReplicatorProperties;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * The cuts of {@code replicator.groups}, from the status board (since when each table is known
 * current) and the replicas as they are, for the status API and the {@code
 * replicator_group_cut_lag_seconds} gauge (one per group; NaN while the group has no cut).
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
            .toList());
  }

  /** A group's cut as read now, with the tables' lanes and the moment its cut tag names. */
  record Read(
      List<GroupCutReader.Member> members,
      GroupCutReader.Report report,
      OptionalLong tagMomentMs) {}

  Read read(ReplicatorProperties.Group group) {
    List<GroupCutReader.Member> members =
        group.tables().stream()
            .map(
                table -> {
                  var key = board.findTable(group.target(), table);
                  return new GroupCutReader.Member(
                      table, key, key.map(board::knownCurrentFrom).orElse(OptionalLong.empty()));
                })
            .toList();
    GroupCutReader.Reading reading =
        reader.read(
            group.name(),
            group.ref(),
            members,
            group.clockSkew(),
            group.transactionWindow(),
            clock.instant());
    cached.put(group.name(), new Cached(clock.millis(), reading.report()));
    return new Read(members, reading.report(), reading.tagMomentMs());
  }

  private double cutLagSeconds(ReplicatorProperties.Group group) {
    Cached last = cached.get(group.name());
    GroupCutReader.Report report =
        last != null && clock.millis() - last.atMs() < METRIC_REFRESH.toMillis()
            ? last.report()
            : report(group);
    if (report.cut() == null) {
      return Double.NaN;
    }
    // the lag grows while the cut stands still, between reads of the replicas too
    return Math.max(0, clock.millis() - report.cut().toEpochMilli()) / 1000.0;
  }
}
