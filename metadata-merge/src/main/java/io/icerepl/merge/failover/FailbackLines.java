package io.icerepl.merge.failover;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.merge.SameMeaning;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * Makes the two lines of history of a fail-back one table without a reader noticing the join: the
 * promoted table's and the orphans only the old source holds. Ids both lines use with different
 * meaning are never silent: an orphan-only schema gets a new id (its snapshots name it by id, so
 * they can follow it), while a partition spec or sort order id cannot move (data and manifest files
 * name it), so that, and a sequence number or row-id range both lines use, is refused. A table
 * promoted by this replicator never shares the latter two: the promotion commit leaves a gap.
 */
public final class FailbackLines {
  private static final String FIRST_ROW_ID = "first-row-id";
  private static final String ADDED_ROWS = "added-rows";

  private FailbackLines() {}

  /**
   * @param promoted the promoted table's metadata, read from {@code promotedFile}
   * @param original the old source's newest metadata, read from {@code originalFile}
   * @param orphans its orphans ({@link Orphans#find})
   * @return the old source's metadata with clashing orphan-only schemas renumbered, ready to be the
   *     replica side of the fail-back merge
   * @throws ConflictException naming both files when the lines cannot be joined
   */
  public static TableMetadata join(
      TableMetadata promoted,
      String promotedFile,
      TableMetadata original,
      String originalFile,
      Orphans orphans) {
    Set<Long> orphanIds = new HashSet<>(orphans.snapshotIds());
    checkIds(
        promoted,
        promotedFile,
        original,
        originalFile,
        PARTITION_SPECS,
        SPEC_ID,
        "partition spec",
        SameMeaning::partitionSpecs);
    checkIds(
        promoted,
        promotedFile,
        original,
        originalFile,
        SORT_ORDERS,
        ORDER_ID,
        "sort order",
        SameMeaning::sortOrders);
    if (original.formatVersion() >= 2) {
      checkSequenceNumbers(promoted, promotedFile, original, originalFile, orphanIds);
    }
    if (original.formatVersion() >= 3) {
      checkRowIds(promoted, promotedFile, original, originalFile, orphanIds);
    }
    return renumberSchemas(promoted, original, originalFile, orphanIds);
  }

  private static void checkIds(
      TableMetadata promoted,
      String promotedFile,
      TableMetadata original,
      String originalFile,
      String field,
      String idField,
      String noun,
      BiPredicate<JsonNode, JsonNode> sameMeaning) {
    Map<Long, JsonNode> promotedById = byId(promoted, field, idField);
    for (JsonNode node : original.json().path(field)) {
      long id = node.get(idField).asLong();
      JsonNode other = promotedById.get(id);
      if (other != null && !sameMeaning.test(other, node)) {
        throw new ConflictException(
            "Cannot fail back table metadata "
                + originalFile
                + ": its "
                + noun
                + " "
                + id
                + " differs from "
                + noun
                + " "
                + id
                + " of the promoted table's "
                + promotedFile
                + " (both lines added one with the same "
                + idField
                + ", which data files name and cannot change)");
      }
    }
  }

  private static void checkSequenceNumbers(
      TableMetadata promoted,
      String promotedFile,
      TableMetadata original,
      String originalFile,
      Set<Long> orphanIds) {
    Map<Long, Long> promotedBySequence = new HashMap<>();
    promoted.snapshots().forEach(s -> promotedBySequence.put(s.sequenceNumber(), s.snapshotId()));
    for (Snapshot orphan : original.snapshots()) {
      Long other = promotedBySequence.get(orphan.sequenceNumber());
      if (orphanIds.contains(orphan.snapshotId()) && other != null) {
        throw new ConflictException(
            "Cannot fail back table metadata "
                + originalFile
                + ": its orphan snapshot "
                + orphan.snapshotId()
                + " and snapshot "
                + other
                + " of the promoted table's "
                + promotedFile
                + " share sequence-number "
                + orphan.sequenceNumber()
                + " (the table was not promoted with a sequence-number gap)");
      }
    }
  }

  private static void checkRowIds(
      TableMetadata promoted,
      String promotedFile,
      TableMetadata original,
      String originalFile,
      Set<Long> orphanIds) {
    for (Snapshot orphan : original.snapshots()) {
      if (!orphanIds.contains(orphan.snapshotId()) || !hasRowIds(orphan)) {
        continue;
      }
      for (Snapshot other : promoted.snapshots()) {
        if (hasRowIds(other) && overlap(orphan, other)) {
          throw new ConflictException(
              "Cannot fail back table metadata "
                  + originalFile
                  + ": its orphan snapshot "
                  + orphan.snapshotId()
                  + " and snapshot "
                  + other.snapshotId()
                  + " of the promoted table's "
                  + promotedFile
                  + " assign the same row ids (from "
                  + Math.max(firstRowId(orphan), firstRowId(other))
                  + "; the table was not promoted with a row-id gap)");
        }
      }
    }
  }

  private static boolean hasRowIds(Snapshot snapshot) {
    return snapshot.json().hasNonNull(FIRST_ROW_ID) && snapshot.json().hasNonNull(ADDED_ROWS);
  }

  private static long firstRowId(Snapshot snapshot) {
    return snapshot.json().get(FIRST_ROW_ID).asLong();
  }

  /** Whether the row-id ranges [first-row-id, first-row-id + added-rows) of both overlap. */
  private static boolean overlap(Snapshot a, Snapshot b) {
    long aEnd = firstRowId(a) + a.json().get(ADDED_ROWS).asLong();
    long bEnd = firstRowId(b) + b.json().get(ADDED_ROWS).asLong();
    return firstRowId(a) < bEnd && firstRowId(b) < aEnd;
  }

  /**
   * An orphan-only schema whose id the promoted table gave another schema takes the next free id,
   * and the orphan snapshots naming it follow: each snapshot is read with its own schema.
   */
  private static TableMetadata renumberSchemas(
      TableMetadata promoted, TableMetadata original, String originalFile, Set<Long> orphanIds) {
    Map<Long, JsonNode> promotedById = byId(promoted, SCHEMAS, SCHEMA_ID);
    Map<Long, JsonNode> originalById = byId(original, SCHEMAS, SCHEMA_ID);
    long nextId = 1;
    for (Long id : promotedById.keySet()) {
      nextId = Math.max(nextId, id + 1);
    }
    for (Long id : originalById.keySet()) {
      nextId = Math.max(nextId, id + 1);
    }
    // schema ids are ints in the spec; written as such so that readers compare them alike
    Map<Long, Long> renumbered = new LinkedHashMap<>();
    for (Map.Entry<Long, JsonNode> schema : originalById.entrySet()) {
      JsonNode other = promotedById.get(schema.getKey());
      if (other != null && !SameMeaning.schemas(other, schema.getValue())) {
        renumbered.put(schema.getKey(), nextId++);
      }
    }
    if (renumbered.isEmpty()) {
      return original;
    }
    ObjectNode out = original.copyOfJson();
    for (JsonNode schema : out.path(SCHEMAS)) {
      Long to = renumbered.get(schema.get(SCHEMA_ID).asLong());
      if (to != null) {
        ((ObjectNode) schema).put(SCHEMA_ID, to.intValue());
      }
    }
    for (JsonNode snapshot : out.path(SNAPSHOTS)) {
      JsonNode schemaId = snapshot.get(SCHEMA_ID);
      if (schemaId != null && renumbered.containsKey(schemaId.asLong())) {
        if (!orphanIds.contains(snapshot.get(SNAPSHOT_ID).asLong())) {
          throw new ConflictException(
              "Cannot fail back table metadata "
                  + originalFile
                  + ": its snapshot "
                  + snapshot.get(SNAPSHOT_ID).asLong()
                  + ", which the promoted table holds too, names schema "
                  + schemaId.asLong()
                  + ", which the promoted table defines differently");
        }
        ((ObjectNode) snapshot).put(SCHEMA_ID, renumbered.get(schemaId.asLong()).intValue());
      }
    }
    Long current = renumbered.get(out.path(CURRENT_SCHEMA_ID).asLong());
    if (current != null) {
      out.put(CURRENT_SCHEMA_ID, current.intValue());
    }
    return TableMetadataParser.fromJson(out, originalFile);
  }

  private static Map<Long, JsonNode> byId(TableMetadata metadata, String field, String idField) {
    Map<Long, JsonNode> byId = new LinkedHashMap<>();
    metadata.json().path(field).forEach(node -> byId.put(node.get(idField).asLong(), node));
    return byId;
  }
}
