package io.icerepl.merge.merge;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.ConflictException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Merges {@code refs}: the source's, less those the replica's retention dropped, plus the tags only
 * the replica keeps (its kept refs and a group's cut tags). Decided before the snapshots are
 * merged, since the snapshots the refs name are the ones the replica must hold.
 */
final class RefsMerge {
  private static final String KEPT_REF_MAX_AGE_MS = "max-ref-age-ms";

  private RefsMerge() {}

  /** Sets the merged {@code refs} in {@code out}, which holds the source's. */
  static void merge(ObjectNode out, MergeRequest request) {
    String sourceFile = request.sourceMetadataFile();
    removeDroppedRefs(out, request.droppedRefs());
    addKeptRefs(out, request.keptRefs(), "a tag", sourceFile);
    addKeptRefs(out, request.cutTags(), "a group's cut tag", sourceFile);
  }

  /** Snapshots the source needs: its current one and every ref's the replica keeps. */
  static Set<Long> protectedSnapshotIds(ObjectNode out) {
    Set<Long> ids = new HashSet<>();
    JsonNode refs = out.get(REFS);
    if (refs != null && refs.isObject()) {
      refs.forEach(ref -> ids.add(ref.get(SNAPSHOT_ID).asLong()));
    }
    JsonNode current = out.get(CURRENT_SNAPSHOT_ID);
    if (current != null && !current.isNull() && current.asLong() != -1) {
      ids.add(current.asLong());
    }
    return ids;
  }

  /**
   * A ref the replica's retention dropped stays dropped while the source's ref still points where
   * it did; a source that moves the ref brings it back.
   */
  private static void removeDroppedRefs(ObjectNode out, Map<String, Long> droppedRefs) {
    JsonNode refs = out.get(REFS);
    if (!(refs instanceof ObjectNode refsObject) || droppedRefs.isEmpty()) {
      return;
    }
    droppedRefs.forEach(
        (name, snapshotId) -> {
          JsonNode ref = refsObject.get(name);
          if (ref != null && ref.get(SNAPSHOT_ID).asLong() == snapshotId && !"main".equals(name)) {
            refsObject.remove(name);
          }
        });
  }

  /**
   * Kept refs become tags; a source ref of the same name elsewhere is a conflict, never a choice.
   *
   * @param what how the message names such a tag
   */
  private static void addKeptRefs(
      ObjectNode out, Map<String, Long> keptRefs, String what, String sourceFile) {
    if (keptRefs.isEmpty()) {
      return;
    }
    ObjectNode refs = out.with(REFS);
    keptRefs.forEach(
        (name, snapshotId) -> {
          JsonNode existing = refs.get(name);
          if (existing != null && existing.get(SNAPSHOT_ID).asLong() != snapshotId) {
            throw new ConflictException(
                "Cannot replicate table metadata "
                    + sourceFile
                    + ": its ref '"
                    + name
                    + "' names snapshot "
                    + existing.get(SNAPSHOT_ID).asLong()
                    + ", but the replica keeps "
                    + what
                    + " of that name at snapshot "
                    + snapshotId);
          }
          if (existing == null) {
            putKeptTag(refs, name, snapshotId);
          }
        });
  }

  /**
   * A tag only the replica has, in {@code refs}. Its own {@code max-ref-age-ms} is the largest
   * there is: it alone keeps its snapshot, so no expiry (the replica's, or an engine's once the
   * table is writable again) may drop it for its age, whatever the table-level ref age says.
   */
  static void putKeptTag(ObjectNode refs, String name, long snapshotId) {
    refs.putObject(name)
        .put(SNAPSHOT_ID, snapshotId)
        .put(REF_TYPE, "tag")
        .put(KEPT_REF_MAX_AGE_MS, Long.MAX_VALUE);
  }

  /** Refuses metadata whose current snapshot or a ref's snapshot is not among its snapshots. */
  static void checkHeld(ObjectNode out, SnapshotIdIndex held, String sourceFile) {
    JsonNode current = out.get(CURRENT_SNAPSHOT_ID);
    if (current != null
        && !current.isNull()
        && current.asLong() != -1
        && !held.contains(current.asLong())) {
      throw new ConflictException(
          "Cannot replicate table metadata "
              + sourceFile
              + ": its current-snapshot-id "
              + current.asLong()
              + " is not among its snapshots");
    }
    JsonNode refs = out.get(REFS);
    if (refs != null && refs.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = refs.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> ref = it.next();
        long id = ref.getValue().get(SNAPSHOT_ID).asLong();
        if (!held.contains(id)) {
          throw new ConflictException(
              "Cannot replicate table metadata "
                  + sourceFile
                  + ": ref '"
                  + ref.getKey()
                  + "' names snapshot "
                  + id
                  + ", which is not among its snapshots");
        }
      }
    }
  }
}
