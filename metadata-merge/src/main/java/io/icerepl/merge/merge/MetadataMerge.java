package io.icerepl.merge.merge;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.LegacyV1Fields;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The merge of one source metadata version into the replica: a pure function from (source, replica,
 * mapping, options) to (new replica metadata, what must be copied first).
 *
 * <p>Versioned lists are unions by id, where an id the replica already holds with different content
 * is a conflict (Iceberg reuses freed ids, and kept manifests would be read with the wrong schema
 * or spec). Table state is carried from the source; {@code location}, {@code metadata-log} and
 * {@code last-updated-ms} belong to the replica.
 */
public final class MetadataMerge {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private MetadataMerge() {}

  public static MergeResult merge(MergeRequest request) {
    TableMetadata source = LegacyV1Fields.withListFields(request.source());
    TableMetadata replica = request.replica().orElse(null);
    String sourceFile = request.sourceMetadataFile();
    PathMapping mapping = request.mapping();

    if (source.hasEncryptionKeys()) {
      throw new UnsupportedFeatureException(
          "Cannot replicate table metadata " + sourceFile + ": encrypted tables are not supported");
    }
    if (replica != null) {
      checkSameTable(source, replica, sourceFile, request.replicaMetadataFile().orElseThrow());
    }

    TableMetadata.Builder builder = source.toBuilder();
    ObjectNode out = builder.fields();
    out.put(LOCATION, request.targetLocation());

    out.set(
        SCHEMAS,
        unionById(replica, source, SCHEMAS, SCHEMA_ID, "schema", SameMeaning::schemas, sourceFile));
    out.set(
        PARTITION_SPECS,
        unionById(
            replica,
            source,
            PARTITION_SPECS,
            SPEC_ID,
            "partition spec",
            SameMeaning::partitionSpecs,
            sourceFile));
    out.set(
        SORT_ORDERS,
        unionById(
            replica,
            source,
            SORT_ORDERS,
            ORDER_ID,
            "sort order",
            SameMeaning::sortOrders,
            sourceFile));

    RefsMerge.merge(out, request);
    SnapshotUnion snapshots =
        SnapshotUnion.of(request, replica, RefsMerge.protectedSnapshotIds(out));
    builder.snapshots(snapshots.list());
    SnapshotIdIndex held = snapshots.ids();
    List<FileCopy> statisticsFiles = StatisticsMerge.merge(out, replica, source, held, mapping);

    builder.snapshotLog(
        SnapshotLogMerge.merge(
            replica, source, held, keptOnly(replica, source, request.keptRefs())));
    keepHighest(out, replica);
    ReplicaCommits.setMetadataLog(
        builder, request.replica(), request.replicaMetadataFile(), request.previousVersionsMax());
    out.set(PROPERTIES, properties(source, request.targetLocation(), mapping, sourceFile));
    RefsMerge.checkHeld(out, held, sourceFile);

    ReplicaCommits.setLastUpdatedMs(
        out, request.replica(), request.commitTimeMs(), source.lastUpdatedMs());

    TableMetadata metadata = builder.build("replica of " + sourceFile);
    return new MergeResult(metadata, snapshots.added(), statisticsFiles);
  }

  /**
   * Refuses a source that is not the table the replica was made from, or that went backwards.
   * Checked first, so a replaced table is reported as such rather than as a gap in its log.
   */
  public static void checkSameTable(
      TableMetadata source, TableMetadata replica, String sourceFile, String replicaFile) {
    if (source.tableUuid().isPresent()
        && replica.tableUuid().isPresent()
        && !source.tableUuid().equals(replica.tableUuid())) {
      throw new ConflictException(
          "Cannot replicate table metadata "
              + sourceFile
              + ": its table-uuid "
              + source.tableUuid().get()
              + " differs from the replica's "
              + replica.tableUuid().get()
              + " ("
              + replicaFile
              + "); the source table was replaced");
    }
    if (source.lastSequenceNumber() < replica.lastSequenceNumber()) {
      throw new ConflictException(
          "Cannot replicate table metadata "
              + sourceFile
              + ": its last-sequence-number "
              + source.lastSequenceNumber()
              + " is lower than the replica's "
              + replica.lastSequenceNumber()
              + "; the source was rewound");
    }
    if (source.formatVersion() < replica.formatVersion()) {
      throw new ConflictException(
          "Cannot replicate table metadata "
              + sourceFile
              + ": its format-version "
              + source.formatVersion()
              + " is lower than the replica's "
              + replica.formatVersion());
    }
  }

  /**
   * Union by id: the replica's entries in its order, then the source's new ones in theirs. An entry
   * both hold is compared by meaning, and the replica keeps its own spelling of it.
   */
  private static ArrayNode unionById(
      TableMetadata replica,
      TableMetadata source,
      String field,
      String idField,
      String noun,
      BiPredicate<JsonNode, JsonNode> sameMeaning,
      String sourceFile) {
    Map<Long, JsonNode> byId = new LinkedHashMap<>();
    if (replica != null) {
      path(replica, field).forEach(node -> byId.put(node.get(idField).asLong(), node));
    }
    for (JsonNode node : path(source, field)) {
      long id = node.get(idField).asLong();
      JsonNode existing = byId.get(id);
      if (existing == null) {
        byId.put(id, node);
      } else if (!sameMeaning.test(existing, node)) {
        throw new ConflictException(
            "Cannot merge "
                + noun
                + " "
                + id
                + " of table metadata "
                + sourceFile
                + ": the replica holds a different "
                + noun
                + " with the same "
                + idField
                + " (the id was reused); replicas keep old snapshots that need the old one");
      }
    }
    ArrayNode array = NODES.arrayNode();
    byId.values().forEach(array::add);
    return array;
  }

  /**
   * A tag only the replica has, in {@code refs}, with the largest {@code max-ref-age-ms} there is,
   * so that no expiry drops it for its age: the one way such a tag is written, for a group's cut
   * tags as for the merge's kept refs.
   */
  public static void putKeptTag(ObjectNode refs, String name, long snapshotId) {
    RefsMerge.putKeptTag(refs, name, snapshotId);
  }

  /**
   * The snapshots only kept refs reach (the kept tags' targets and their ancestors the source does
   * not hold): never current on the table's main history, so not in its {@code snapshot-log}.
   */
  private static Set<Long> keptOnly(
      TableMetadata replica, TableMetadata source, Map<String, Long> keptRefs) {
    Set<Long> keptOnly = new HashSet<>();
    if (replica == null || keptRefs.isEmpty()) {
      return keptOnly;
    }
    SnapshotIdIndex inSource = SnapshotIdIndex.of(source.snapshots());
    for (Long id : keptRefs.values()) {
      for (Snapshot snapshot : replica.graph().ancestors(id)) {
        if (inSource.contains(snapshot.snapshotId()) || !keptOnly.add(snapshot.snapshotId())) {
          break;
        }
      }
    }
    return keptOnly;
  }

  /**
   * The highest id either side assigned: the replica may hold kept snapshots whose line assigned
   * higher ones than the source (a fail-back's orphans), and a later commit must not reuse them.
   */
  private static void keepHighest(ObjectNode out, TableMetadata replica) {
    if (replica == null) {
      return;
    }
    for (String field :
        new String[] {LAST_SEQUENCE_NUMBER, LAST_COLUMN_ID, LAST_PARTITION_ID, NEXT_ROW_ID}) {
      JsonNode replicaValue = replica.field(field);
      JsonNode outValue = out.get(field);
      if (replicaValue != null
          && replicaValue.isNumber()
          && outValue != null
          && outValue.isNumber()
          && replicaValue.asLong() > outValue.asLong()) {
        out.put(field, replicaValue.asLong());
      }
    }
  }

  /** A top-level field's JSON, missing when absent. */
  private static JsonNode path(TableMetadata metadata, String field) {
    JsonNode node = metadata.field(field);
    return node == null ? MissingNode.getInstance() : node;
  }

  /**
   * The source's properties, its path properties mapped, with the write paths the mapping implies
   * ({@link TableLayout#impliedWritePaths}) and the replicator's own.
   */
  private static ObjectNode properties(
      TableMetadata source, String targetLocation, PathMapping mapping, String sourceFile) {
    ObjectNode properties = NODES.objectNode();
    source
        .properties()
        .forEach(
            (key, value) ->
                properties.put(
                    key,
                    TableLayout.isPathProperty(key) && !value.isBlank()
                        ? mapping.map(value)
                        : value));
    TableLayout.impliedWritePaths(source, targetLocation, mapping).forEach(properties::put);
    ownMetadataDeletes(properties, source.properties());
    properties.put(ReplicaProperties.READ_ONLY, "true");
    properties.put(ReplicaProperties.SOURCE_METADATA_FILE, MetadataFileNames.fileName(sourceFile));
    properties.put(ReplicaProperties.SOURCE_LAST_UPDATED_MS, Long.toString(source.lastUpdatedMs()));
    return properties;
  }

  /**
   * The replica keeps every metadata file it was given: {@link
   * ReplicaProperties#METADATA_DELETE_AFTER_COMMIT} is the replicator's, the source's value kept
   * beside it (a source that is itself a promoted replica already carries the first one's).
   */
  private static void ownMetadataDeletes(ObjectNode properties, Map<String, String> source) {
    String sourceValue = source.get(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT);
    if (sourceValue != null
        && !source.containsKey(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT)) {
      properties.put(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT, sourceValue);
    }
    properties.put(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "false");
  }
}
