package io.icerepl.app.engine.group;

import io.icerepl.app.engine.failover.GroupPromotion;
import io.icerepl.app.engine.worker.GroupOperations;
import io.icerepl.app.engine.worker.ReplicationCoordinator;
import io.icerepl.app.engine.worker.TableKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A served group's consistent promotion: every table promoted at the newest cut tag all its
 * replicas carry, each in its table's lane. Now mode first tags the newest cut the replicas prove;
 * safe mode (planned failover, the sources reachable) first catches every table up and verifies it
 * ({@link GroupCatchUp}), then tags a fresh cut, which lies after every commit the sources held
 * when asked. A rerun completes the same cut without catching up again.
 */
public record GroupPromoter(
    ReplicationCoordinator coordinator,
    GroupOperations groups,
    GroupCatchUp catchUp,
    GroupTagging tagging,
    GroupWork work) {
  private static final Logger LOG = LoggerFactory.getLogger(GroupPromoter.class);

  /** How often a safe promotion tries to tag its fresh cut while a scheduled round runs. */
  private static final int TAG_ATTEMPTS = 20;

  /**
   * Promotes the group's tables ({@code keys}, in the group's order) at one cut.
   *
   * @param safe whether to catch up, verify and tag a fresh cut first
   * @throws GroupCatchUp.Refused when a table does not catch up or verify, or a fresh cut cannot be
   *     tagged in safe mode
   */
  public GroupPromotion.Result promote(GroupSettings group, List<TableKey> keys, boolean safe)
      throws InterruptedException {
    if (keys.stream().noneMatch(groups::isPromoted)) {
      if (safe) {
        catchUp.catchUp(group, keys);
        tagFreshCut(group);
      } else {
        tagProvenCut(group);
      }
    }
    return groups.promoteGroup(
        keys,
        group.ref(),
        (key, cutTag) ->
            GroupCatchUp.joined(
                coordinator.runInLane(
                    key, "promote at cut " + cutTag, k -> groups.promoteAtCut(k, cutTag))));
  }

  /**
   * Now mode: tags the newest cut the replicas' own records prove, so the group is promoted at it
   * rather than at the last scheduled cut tag (up to a tag-interval older). A replica that cannot
   * be tagged leaves the promotion to the newest cut tag every replica already carries, which is a
   * cut too: a failover is not held up by it.
   */
  private void tagProvenCut(GroupSettings group) throws InterruptedException {
    try {
      tagFreshCut(group);
    } catch (GroupCatchUp.Refused e) {
      LOG.warn(
          "group {}: the newest cut could not be tagged ({}); promoting at the newest cut tag every"
              + " table carries",
          group.name(),
          e.getMessage());
    }
  }

  /**
   * Tags the group's cut as it stands now, after a scheduled round under way. The round runs on the
   * group's pool ({@link GroupWork}), not on the caller's thread, and is waited for until the
   * group's round deadline: a replica that does not answer refuses the promotion, naming the group,
   * rather than holding the caller.
   */
  private void tagFreshCut(GroupSettings group) throws InterruptedException {
    Duration deadline = GroupWork.roundDeadline(group);
    long until = System.nanoTime() + deadline.toNanos();
    try {
      for (int attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
        Duration left = Duration.ofNanos(Math.max(until - System.nanoTime(), 1));
        if (work.roundAndWait(
            group.name(),
            "safe promotion's tagging of a fresh cut",
            left,
            () -> tagging.tag(group))) {
          return;
        }
        Thread.sleep(100);
      }
    } catch (TimeoutException e) {
      throw new GroupCatchUp.Refused(
          "Cannot promote group "
              + group.name()
              + " safely: tagging its fresh cut on "
              + group.tables()
              + " did not end within "
              + deadline
              + " (a replica that does not answer?); the round goes on, and health shows the group"
              + " as stuck while it does");
    }
    throw new GroupCatchUp.Refused(
        "Cannot promote group "
            + group.name()
            + " safely: its fresh cut could not be tagged on every table (see the log)");
  }
}
