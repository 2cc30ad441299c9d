package io.icerepl.app.engine.group;

import io.icerepl.app.engine.worker.TableKey;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * The groups' cuts, from the replicas as they are (each records since when it is known current),
 * for the status API, the tagging rounds and the gauges of how far each cut is behind (NaN while
 * the group has no cut).
 */
public final class GroupCuts {
  /** A scrape reads the replicas at most this often; the API always reads them. */
  static final Duration METRIC_REFRESH = Duration.ofSeconds(15);

  private final Lanes lanes;
  private final List<GroupSettings> groups;
  private final GroupCutReader reader;
  private final Clock clock;
  private final GroupWork work;
  private final Map<String, Cached> cached = new ConcurrentHashMap<>();

  private record Cached(long atMs, GroupCutReader.Report report) {}

  /** Where the lane of a table of a target is found, if the service knows the table. */
  @FunctionalInterface
  public interface Lanes {
    Optional<TableKey> find(String target, String table);
  }

  public GroupCuts(
      Lanes lanes, List<GroupSettings> groups, GroupCutReader reader, Clock clock, GroupWork work) {
    this.lanes = lanes;
    this.groups = List.copyOf(groups);
    this.reader = reader;
    this.clock = clock;
    this.work = work;
  }

  public List<GroupCutReader.Report> all() {
    return groups.stream().map(this::report).toList();
  }

  public Optional<GroupCutReader.Report> get(String name) {
    return groups.stream().filter(group -> group.name().equals(name)).findFirst().map(this::report);
  }

  /**
   * The group's cut read on {@link GroupWork}: a read that hangs answers unread at its deadline.
   */
  private GroupCutReader.Report report(GroupSettings group) {
    try {
      return work.read(group.name(), () -> read(group).report());
    } catch (TimeoutException e) {
      return unread(group);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unread(group);
    }
  }

  private static GroupCutReader.Report unread(GroupSettings group) {
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
  public record Read(
      List<Optional<TableKey>> keys, GroupCutReader.Report report, OptionalLong tagMomentMs) {}

  /**
   * The group's cut from its replicas as they are: since when each is known current is the
   * replica's own record, so a restarted service, or the command line with no service, computes the
   * same cut.
   */
  public Read read(GroupSettings group) {
    List<Optional<TableKey>> keys =
        group.tables().stream().map(table -> lanes.find(group.target(), table)).toList();
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

  /** How far the group's cut is behind now, in seconds; NaN without a cut. */
  public double cutLagSeconds(GroupSettings group) {
    GroupCutReader.Report report = recent(group);
    if (report.cut() == null) {
      return Double.NaN;
    }
    // the lag grows while the cut stands still, between reads of the replicas too
    return Math.max(0, clock.millis() - report.cut().toEpochMilli()) / 1000.0;
  }

  /**
   * What a consistent failover of the group now would lose, in seconds: the time from the cut it
   * would promote at to now; NaN without a cut.
   */
  public double lossWindowSeconds(GroupSettings group) {
    Cached last = cached.get(group.name());
    GroupCutReader.Report report = recent(group);
    if (report.lossWindowSeconds() == null) {
      return Double.NaN;
    }
    // the window grows while the cut stands still, between reads of the replicas too
    long readAt = last == null ? clock.millis() : last.atMs();
    return report.lossWindowSeconds() + Math.max(0, clock.millis() - readAt) / 1000.0;
  }

  private GroupCutReader.Report recent(GroupSettings group) {
    Cached last = cached.get(group.name());
    return last != null && clock.millis() - last.atMs() < METRIC_REFRESH.toMillis()
        ? last.report()
        : report(group);
  }
}
