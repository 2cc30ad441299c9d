package io.icerepl.app.engine.worker;

/**
 * Source and replica heads as read from the stores (after a run, or at start-up).
 *
 * @param sourceMetadataFile the source's current metadata file
 * @param sourceUpdatedMs its {@code last-updated-ms}
 * @param replicaMetadataFile the replica's current metadata file, null when there is none
 * @param replicatedSourceFile the source metadata file the replica was built from (the replica
 *     records its name; the path is the source's), null when there is no replica
 * @param replicatedSourceUpdatedMs that file's {@code last-updated-ms}, as the replica records it;
 *     null when unknown
 * @param inSync whether the replica was built from {@code sourceMetadataFile}
 * @param oldestUnreplicatedMs commit time of the oldest source version the replica lacks
 * @param lagSnapshots source snapshots the replica lacks
 */
public record Observation(
    String sourceMetadataFile,
    long sourceUpdatedMs,
    String replicaMetadataFile,
    String replicatedSourceFile,
    Long replicatedSourceUpdatedMs,
    boolean inSync,
    long oldestUnreplicatedMs,
    int lagSnapshots) {}
