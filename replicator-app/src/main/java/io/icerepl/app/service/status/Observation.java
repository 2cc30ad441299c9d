package io.icerepl.app.service.status;

/**
 * Source and replica heads as read after a successful run.
 *
 * @param sourceMetadataFile the source's current metadata file
 * @param sourceUpdatedMs its {@code last-updated-ms}
 * @param replicaMetadataFile the replica's current metadata file, null when there is none
 * @param inSync whether the replica was built from {@code sourceMetadataFile}
 * @param oldestUnreplicatedMs commit time of the oldest source version the replica lacks
 * @param lagSnapshots source snapshots the replica lacks
 */
public record Observation(
    String sourceMetadataFile,
    long sourceUpdatedMs,
    String replicaMetadataFile,
    boolean inSync,
    long oldestUnreplicatedMs,
    int lagSnapshots) {}
