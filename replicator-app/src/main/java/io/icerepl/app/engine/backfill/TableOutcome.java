package io.icerepl.app.engine.backfill;

import io.icerepl.app.engine.ReplicationSummary;
import java.time.Duration;
import java.util.Optional;

/**
 * How one table's backfill to one target ended.
 *
 * @param rule the rule's name
 * @param table the table's path relative to the rule's source (the rule's source itself when its
 *     tables could not be listed)
 * @param target the target's name (empty when the rule's tables could not be listed)
 * @param summary what the run did, when it succeeded
 * @param error why it failed, when it did
 * @param time how long it took
 */
public record TableOutcome(
    String rule,
    String table,
    String target,
    Optional<ReplicationSummary> summary,
    Optional<String> error,
    Duration time) {

  public boolean failed() {
    return error.isPresent();
  }

  /** The replica already held every source version: the run wrote and copied nothing. */
  public boolean upToDate() {
    return summary.map(s -> s.versionsApplied() == 0 && s.filesCopied() == 0).orElse(false);
  }
}
