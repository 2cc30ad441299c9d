package io.icerepl.merge.retention;

import io.icerepl.merge.model.TableMetadata;
import java.util.List;

/**
 * What one expiry decides, before any file is touched.
 *
 * @param metadata the replica metadata without the expired snapshots and dropped refs (its {@code
 *     metadata-log} and {@code last-updated-ms} are left for the commit to set)
 * @param expiredSnapshotIds the snapshots removed, in the order the metadata listed them
 * @param droppedRefs the refs removed, with why
 * @param warnings things a user should know (none today: a dangling ref is refused on read)
 */
public record RetentionPlan(
    TableMetadata metadata,
    List<Long> expiredSnapshotIds,
    List<DroppedRef> droppedRefs,
    List<String> warnings) {
  public RetentionPlan {
    expiredSnapshotIds = List.copyOf(expiredSnapshotIds);
    droppedRefs = List.copyOf(droppedRefs);
    warnings = List.copyOf(warnings);
  }
}
