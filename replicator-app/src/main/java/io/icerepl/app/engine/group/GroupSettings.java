package io.icerepl.app.engine.group;

import java.time.Duration;
import java.util.List;

/**
 * A replication group as its orchestration needs it: tables of one target whose replicas are tagged
 * and promoted at one cut. The service reads it from {@code replicator.groups}, which checks it.
 *
 * @param tables the tables' paths under the target's prefixes ({@code ns/orders})
 * @param ref what the group's cut tags are named after
 * @param clockSkew how far the writers' clocks may be apart: a cut is tagged this much earlier
 * @param tagInterval how often a cut is tagged; a round's deadline (at least {@link
 *     GroupWork#DEADLINE})
 * @param keepTags how long a cut tag is kept
 * @param transactionWindow a multi-table transaction within it is never cut through
 */
public record GroupSettings(
    String name,
    String target,
    List<String> tables,
    String ref,
    Duration clockSkew,
    Duration tagInterval,
    Duration keepTags,
    Duration transactionWindow) {
  public GroupSettings {
    tables = List.copyOf(tables);
  }
}
