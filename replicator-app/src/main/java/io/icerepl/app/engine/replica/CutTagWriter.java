package io.icerepl.app.engine.replica;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.group.MainAt;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a replication group's tags ({@link CutTags}) on one replica: a ref-only replica commit,
 * under the table's lease and through {@link LeasedReplica} as every replica write, recorded in the
 * replica's state first so that every later replication keeps the tags.
 */
public final class CutTagWriter {
  private static final Logger LOG = LoggerFactory.getLogger(CutTagWriter.class);

  /** What a move did. */
  public enum Outcome {
    /** The tags were moved by a new replica version. */
    MOVED,
    /** The replica already had them there: nothing written. */
    UNCHANGED,
    /** The replica had no snapshot at the cut: nothing to tag, nothing written. */
    NO_SNAPSHOT,
    /** The replica was promoted: a primary carries no group tags, nothing written. */
    PROMOTED
  }

  private final ObjectStore store;
  private final Clock clock;
  private final ReplicaFiles files;

  public CutTagWriter(ObjectStore store, Clock clock, long maxMetadataBytes) {
    this.store = store;
    this.clock = clock;
    this.files = new ReplicaFiles(store, maxMetadataBytes);
  }

  /**
   * Tags the cut {@code momentMs} of {@code ref} on the replica at {@code location} at the snapshot
   * its {@code main} showed then, and moves the moving tag there. The replica's history of that
   * moment is read under the lease: replication only adds to it.
   *
   * @param keep how long the cut tags stay
   * @param published told of the new replica version's metadata file, for the replica's catalog
   *     entry to follow it
   * @throws BadInputException when a ref of the replica's own bears one of the group's names; the
   *     replica is left as it was
   */
  public Outcome move(
      String table,
      String location,
      String ref,
      long momentMs,
      Duration keep,
      Consumer<String> published)
      throws IOException {
    try (ObjectStore.Lock lock = store.lock(location)) {
      LeasedReplica replica = new LeasedReplica(store, files, location, lock);
      ReplicaState state = replica.state();
      if (state.promotion() != null) {
        return Outcome.PROMOTED;
      }
      ReplicaHead head =
          files
              .head(table, location, Optional.empty(), state)
              .orElseThrow(() -> refused(table, ref, "it has no replica"));
      TableMetadata metadata = head.metadata();
      OptionalLong atMoment = MainAt.snapshotAt(metadata, momentMs);
      if (atMoment.isEmpty()) {
        return Outcome.NO_SNAPSHOT;
      }
      long snapshotId = atMoment.getAsLong();
      Map<String, Long> before = state.cutTags();
      Map<String, Long> after =
          CutTags.moved(before, ref, momentMs, snapshotId, CutTags.keepFrom(clock.millis(), keep));
      if (after.equals(before) && metadata.refs().entrySet().containsAll(before.entrySet())) {
        return Outcome.UNCHANGED;
      }
      Optional<String> clash = clash(table, ref, head, before);
      if (clash.isPresent()) {
        throw new BadInputException(clash.get());
      }
      long version = head.version() + 1;
      TableMetadata tagged = CutTags.commit(metadata, head.file(), before, after, clock.millis());
      // the pause campaign stops a process here, before the cut tag's state and version
      WritePoints.reached(WritePoints.TAG, replica.location());
      ReplicaFiles.RecordedCommit recorded =
          replica.recordCommit(state.withCutTags(after), Optional.of(head), version, tagged);
      String file = replica.publish(table, version, recorded.metadata());
      LOG.info(
          "{}: tagged cut {} of {} at snapshot {} in replica version {}",
          table,
          CutTags.name(ref, momentMs),
          ref,
          snapshotId,
          version);
      published.accept(file);
      return Outcome.MOVED;
    }
  }

  /**
   * Why {@code ref} cannot tag the replica whose head is {@code head}, empty when it can: a ref of
   * the source's, replicated into the replica, bears one of the group's names without being a cut
   * tag the replicator recorded ({@code cutTags}, the replica state's).
   */
  public static Optional<String> clash(
      String table, String ref, ReplicaHead head, Map<String, Long> cutTags) {
    return CutTags.clash(head.metadata(), ref, cutTags)
        .map(
            reason ->
                "Cannot tag group ref '"
                    + ref
                    + "' on "
                    + table
                    + ": "
                    + reason
                    + " (in "
                    + head.file()
                    + "); rename the source's ref or give the group another ref");
  }

  private static BadInputException refused(String table, String ref, String reason) {
    return new BadInputException("Cannot tag group ref '" + ref + "' on " + table + ": " + reason);
  }
}
