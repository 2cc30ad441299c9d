package io.icerepl.merge.retention;

import static io.icerepl.merge.model.TableMetadataFields.PARTITION_STATISTICS;
import static io.icerepl.merge.model.TableMetadataFields.REFS;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOTS;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_ID;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_LOG;
import static io.icerepl.merge.model.TableMetadataFields.STATISTICS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Writes the replica metadata that remains after an expiry. Only what the expiry decided changes:
 * {@code metadata-log} and {@code last-updated-ms} are the commit's to set, and every other field,
 * known or not, is carried as it is.
 */
final class ExpiredMetadata {
  private ExpiredMetadata() {}

  static TableMetadata without(
      TableMetadata replica, Set<Long> expiredSnapshotIds, Set<String> droppedRefs) {
    ObjectNode json = replica.copyOfJson();
    Predicate<JsonNode> ofExpiredSnapshot =
        node -> expiredSnapshotIds.contains(node.get(SNAPSHOT_ID).asLong());
    removeWhere(json, SNAPSHOTS, ofExpiredSnapshot);
    // Statistics of a snapshot that is gone describe nothing a reader can reach.
    removeWhere(json, STATISTICS, ofExpiredSnapshot);
    removeWhere(json, PARTITION_STATISTICS, ofExpiredSnapshot);
    JsonNode refs = json.get(REFS);
    if (refs != null && refs.isObject()) {
      ((ObjectNode) refs).remove(droppedRefs);
    }
    truncateSnapshotLog(json);
    return TableMetadataParser.fromJson(json, "replica metadata after snapshot expiry");
  }

  /**
   * Drops every {@code snapshot-log} entry up to and including the last one whose snapshot the
   * table no longer holds. Time travel by timestamp picks the last entry at or before the time and
   * trusts that the table state between it and the next entry is that snapshot; an entry before a
   * gap would answer with a snapshot that was not current then (the spec's rule, and what Iceberg's
   * own expiry writes).
   */
  private static void truncateSnapshotLog(ObjectNode json) {
    JsonNode log = json.get(SNAPSHOT_LOG);
    if (log == null || !log.isArray()) {
      return;
    }
    Set<Long> held = new HashSet<>();
    JsonNode snapshots = json.get(SNAPSHOTS);
    if (snapshots != null && snapshots.isArray()) {
      snapshots.forEach(s -> held.add(s.get(SNAPSHOT_ID).asLong()));
    }
    ArrayNode entries = (ArrayNode) log;
    int lastMissing = -1;
    for (int i = 0; i < entries.size(); i++) {
      if (!held.contains(entries.get(i).get(SNAPSHOT_ID).asLong())) {
        lastMissing = i;
      }
    }
    for (int i = lastMissing; i >= 0; i--) {
      entries.remove(i);
    }
  }

  private static void removeWhere(ObjectNode json, String field, Predicate<JsonNode> remove) {
    JsonNode node = json.get(field);
    if (node == null || !node.isArray()) {
      return;
    }
    ArrayNode array = (ArrayNode) node;
    for (int i = array.size() - 1; i >= 0; i--) {
      if (remove.test(array.get(i))) {
        array.remove(i);
      }
    }
  }
}
