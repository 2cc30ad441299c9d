package io.icerepl.merge.group;

import io.icerepl.merge.model.TableMetadata;

/**
 * One table of a group as its cut is computed.
 *
 * @param table how the group's status names the table
 * @param knownCurrentAtMs the latest time (the replicator's clock) at which the replicator read the
 *     source's head and found the replica holding it, or replicated it
 * @param replica the replica's current metadata
 */
public record GroupMember(String table, long knownCurrentAtMs, TableMetadata replica) {}
