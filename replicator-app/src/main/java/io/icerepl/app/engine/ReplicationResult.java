package io.icerepl.app.engine;

/**
 * What one replication did, and where source and replica stood after it.
 *
 * @param summary what it did
 * @param heads the source head it replicated up to and the replica head it read or published last
 */
public record ReplicationResult(ReplicationSummary summary, TableHeads heads) {}
