package io.icerepl.merge.group;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Whether a table's writer stamps its commits ahead of the replicator's clock. Snapshot times are
 * the writers' clocks, and a group's cut is the replicator's: a replica is read as of the cut less
 * the clock-skew allowance, which keeps out the commits of a writer running behind by less than it.
 * A writer running ahead stamps a commit made before the cut with a time after it, so the cut
 * leaves that commit out while it keeps a later commit of another table whose writer's clock is
 * right: the tables no longer show one moment. Such a writer is the one the replicator can see: a
 * commit is made before the metadata naming it is read, so a stamp later than the read by more than
 * the allowance can only come from a clock that runs ahead.
 */
public final class WriterClock {
  private WriterClock() {}

  /**
   * The stamp furthest ahead of {@code readByMs}, when it is more than {@code allowance} ahead: a
   * snapshot's (its {@code timestamp-ms}, or when it became current in the {@code snapshot-log}),
   * or when no snapshot is that far ahead, the metadata's {@code last-updated-ms}.
   *
   * @param metadata the table's metadata as its writers wrote it (the source's): its snapshots'
   *     {@code timestamp-ms}, its {@code snapshot-log} and its {@code last-updated-ms} are judged
   *     (a replica's {@code last-updated-ms} is the replicator's own commit time)
   * @param readByMs the replicator's clock once the metadata was read: every commit it names was
   *     made before then
   * @param allowance how far ahead a stamp may be; a stamp exactly this far ahead is fine
   */
  public static Optional<Ahead> ahead(TableMetadata metadata, long readByMs, Duration allowance) {
    if (allowance.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot judge writers' clocks: the allowance " + allowance + " is negative");
    }
    // a commit's last-updated-ms comes a little after its snapshot's timestamp-ms: a snapshot
    // ahead is named, the metadata's stamp alone only when no snapshot is
    Optional<Ahead> snapshot = Optional.empty();
    for (Snapshot s : metadata.snapshots()) {
      snapshot = further(snapshot, s.timestampMs(), s.snapshotId(), readByMs);
    }
    for (TableMetadata.SnapshotLogEntry entry : metadata.snapshotLog()) {
      snapshot = further(snapshot, entry.timestampMs(), entry.snapshotId(), readByMs);
    }
    Optional<Ahead> found =
        snapshot
            .filter(ahead -> ahead.by().compareTo(allowance) > 0)
            .or(
                () ->
                    Optional.of(
                        new Ahead(OptionalLong.empty(), metadata.lastUpdatedMs(), readByMs)));
    return found.filter(ahead -> ahead.by().compareTo(allowance) > 0);
  }

  private static Optional<Ahead> further(
      Optional<Ahead> furthest, long stampedMs, long snapshotId, long readByMs) {
    if (furthest.isPresent() && furthest.get().stampedMs() >= stampedMs) {
      return furthest;
    }
    return Optional.of(new Ahead(OptionalLong.of(snapshotId), stampedMs, readByMs));
  }

  /**
   * A stamp ahead of the replicator's clock.
   *
   * @param snapshotId the snapshot stamped so, or that the {@code snapshot-log} entry so stamped
   *     names; empty when only the metadata's {@code last-updated-ms} is (a change of no snapshot)
   * @param stampedMs the writer's stamp
   * @param readByMs the replicator's clock once the metadata was read
   */
  public record Ahead(OptionalLong snapshotId, long stampedMs, long readByMs) {
    /** How far the stamp is ahead of the read. */
    public Duration by() {
      return Duration.ofMillis(stampedMs - readByMs);
    }
  }
}
