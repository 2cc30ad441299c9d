package io.icerepl.app.service.status;

import io.icerepl.app.engine.failover.FailbackReport;
import io.icerepl.app.engine.failover.PromotionResult;
import io.icerepl.app.engine.verify.VerifyReport;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.merge.failover.Promotion;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link StatusBoard} logs, and at which level: a change of state once at its level, a
 * state repeated by every retry at DEBUG (a state no retry changes) or without its stack trace (a
 * failure), so what an operator must act on is not buried by retries.
 */
final class StatusLog {
  private static final Logger LOG = LoggerFactory.getLogger(StatusBoard.class);

  private StatusLog() {}

  /**
   * A run failed and left the replica in {@code state}.
   *
   * @param repeated whether the run before ended in the same state with the same message
   */
  static void failed(
      TableKey key,
      ReplicationState state,
      String message,
      Exception error,
      boolean repeated,
      Duration retryIn) {
    if (repeated && ReplicationStates.waitsForAnOperator(state)) {
      // said at WARN when it changed: every retry repeating it would bury it
      LOG.debug("{}: still {} on {}: {}", key.table(), state, key.target(), message);
    } else if (ReplicationStates.waitsForAnOperator(state)) {
      LOG.warn(
          "{}: {} on {}, an operator must act (the replica is not written): {}",
          key.table(),
          state,
          key.target(),
          message);
    } else if (ReplicationStates.isPrimary(state)) {
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

  static void ruleAtLaneLimit(String rule, int maxLanesPerRule) {
    LOG.warn(
        "{}: rule holds its most lanes ({}); tables beyond them are not replicated (replicator.limits"
            + ".lanes-per-rule)",
        rule,
        maxLanesPerRule);
  }

  static void verified(TableKey key, VerifyReport report) {
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

  static void verifyFailed(TableKey key, RuntimeException error) {
    LOG.warn("{}: verification of replica {} failed", key.table(), key.targetLocation(), error);
  }

  static void promoted(TableKey key, PromotionResult result) {
    Promotion promotion = result.promotion();
    LOG.info(
        "{}: replica {} {}promoted, epoch {}, mode {}, version {}; no longer replicated into",
        key.table(),
        key.targetLocation(),
        result.alreadyPromoted() ? "already " : "",
        promotion.epoch(),
        promotion.mode(),
        promotion.replicaVersion());
  }

  static void failedBack(TableKey key, FailbackReport report) {
    LOG.info(
        "{}: replica {} failed back into {}, orphan commits kept as {}",
        key.table(),
        key.targetLocation(),
        report.originalLocation(),
        report.orphanTags());
  }

  static void sourceDropped(TableKey key, String message) {
    LOG.warn("{}: {}", key.table(), message);
  }

  /**
   * @param again whether the rule's listing failed before with the same message: logged without its
   *     stack trace
   */
  static void discoveryFailed(
      String rule, String source, RuntimeException error, String message, boolean again) {
    if (again) {
      LOG.warn("{}: cannot discover tables under {} again: {}", rule, source, message);
    } else {
      LOG.warn("{}: cannot discover tables under {}", rule, source, error);
    }
  }
}
