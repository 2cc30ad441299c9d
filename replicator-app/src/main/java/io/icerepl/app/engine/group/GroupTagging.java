package io.icerepl.app.engine.group;

import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.worker.GroupOperations;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.merge.group.CutTags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tags each group's cut on its replicas, every {@code tag-interval} (the service's schedules run
 * the rounds on {@link GroupWork}): the moment tagged is the cut less the clock-skew allowance,
 * rounded down to its second and moved back out of any multi-table transaction within the group's
 * {@code transaction-window}, and each table's tag is written in the table's lane (never beside its
 * replication). The status API names a cut tag only once every replica carries it, so a reader told
 * of it finds it on all of them; a round that fails on a table leaves the previous cut tag as the
 * group's and the next round tags a newer cut.
 */
public final class GroupTagging {
  private static final Logger LOG = LoggerFactory.getLogger(GroupTagging.class);

  private final GroupCuts cuts;
  private final ReplicationCoordinator coordinator;
  private final GroupOperations groups;
  // a round of a group never overlaps the group's previous one
  private final Map<String, AtomicBoolean> tagging = new ConcurrentHashMap<>();

  public GroupTagging(GroupCuts cuts, ReplicationCoordinator coordinator, GroupOperations groups) {
    this.cuts = cuts;
    this.coordinator = coordinator;
    this.groups = groups;
  }

  /**
   * One round: tags the group's current cut on every replica that had a snapshot then.
   *
   * @return whether every replica carries the cut's tag now
   */
  public boolean tag(GroupSettings group) {
    AtomicBoolean running = tagging.computeIfAbsent(group.name(), name -> new AtomicBoolean());
    if (!running.compareAndSet(false, true)) {
      return false;
    }
    try {
      GroupCuts.Read read = cuts.read(group);
      GroupCutReader.Report report = read.report();
      if (report.cut() == null || read.tagMomentMs().isEmpty()) {
        return false;
      }
      long moment = read.tagMomentMs().getAsLong();
      if (report.cutTag() != null
          && CutTags.momentOfTag(group.ref(), report.cutTag()).getAsLong() >= moment) {
        return true;
      }
      List<CompletableFuture<CutTagWriter.Outcome>> moves = new ArrayList<>();
      List<TableKey> keys = new ArrayList<>();
      for (Optional<TableKey> found : read.keys()) {
        TableKey key = found.orElseThrow(); // a cut means every table was found
        keys.add(key);
        moves.add(
            coordinator.runInLane(
                key,
                "tag the cut of group " + group.name(),
                k -> groups.tagCut(k, group.ref(), moment, group.keepTags())));
      }
      boolean all = true;
      for (int i = 0; i < moves.size(); i++) {
        try {
          moves.get(i).get(Math.max(1, group.tagInterval().toSeconds()), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
          all = false;
          Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
          LOG.warn(
              "group {}: cannot tag cut {} on {}: {}",
              group.name(),
              CutTags.name(group.ref(), moment),
              keys.get(i).table(),
              cause.getMessage());
        }
      }
      if (!all) {
        return false;
      }
      String cutTag = CutTags.name(group.ref(), moment);
      int together = groups.moveEntriesTogether(keys, cutTag);
      LOG.info(
          "group {}: tagged cut {}{}",
          group.name(),
          cutTag,
          together > 0 ? ", " + together + " catalog entries moved to it together" : "");
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (RuntimeException e) {
      LOG.warn("group {}: cannot tag its cut: {}", group.name(), e.getMessage());
      return false;
    } finally {
      running.set(false);
    }
  }
}
