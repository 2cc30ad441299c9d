package io.icerepl.merge.retention;

/**
 * A ref the replica's retention removed.
 *
 * @param name the ref's name
 * @param snapshotId the snapshot it pointed at
 * @param reason why, e.g. "older than max-ref-age-ms 2592000000"
 */
public record DroppedRef(String name, long snapshotId, String reason) {}
