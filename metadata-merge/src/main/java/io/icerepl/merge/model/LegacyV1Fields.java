package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * v1 metadata written before Iceberg 0.11 holds only {@code schema} and {@code partition-spec}: no
 * {@code schemas}, {@code partition-specs}, {@code sort-orders} or the ids that select from them.
 * Readers derive those with the defaults the spec gives (schema and spec id 0, the unsorted order
 * 0, partition field ids from 1000, {@code last-partition-id} the highest of them or 999); the
 * replica writes them out, as Iceberg does when it rewrites such a table, so the lists it merges by
 * id are never empty and every reader finds the current schema, spec and order.
 */
public final class LegacyV1Fields {
  private static final int FIRST_PARTITION_FIELD_ID = 1000;

  private LegacyV1Fields() {}

  /** The metadata with the list fields derived when it has only the single ones; else itself. */
  public static TableMetadata withListFields(TableMetadata metadata) {
    JsonNode json = metadata.fields();
    boolean complete =
        json.has(SCHEMAS)
            && json.has(PARTITION_SPECS)
            && json.has(SORT_ORDERS)
            && json.has(LAST_PARTITION_ID);
    if (complete || metadata.formatVersion() != 1) {
      return metadata;
    }
    TableMetadata.Builder builder = metadata.toBuilder();
    ObjectNode out = builder.fields();
    if (!out.has(SCHEMAS)) {
      ObjectNode schema = out.get(SCHEMA).deepCopy();
      if (!schema.has(SCHEMA_ID)) {
        schema.put(SCHEMA_ID, 0);
      }
      out.putArray(SCHEMAS).add(schema);
      out.put(CURRENT_SCHEMA_ID, schema.get(SCHEMA_ID).asInt());
    }
    if (!out.has(PARTITION_SPECS)) {
      ObjectNode spec = out.putArray(PARTITION_SPECS).addObject();
      spec.put(SPEC_ID, 0);
      ArrayNode fields = spec.putArray("fields");
      int nextId = FIRST_PARTITION_FIELD_ID;
      for (JsonNode field : out.path(PARTITION_SPEC)) {
        ObjectNode f = field.deepCopy();
        if (!f.has("field-id")) {
          f.put("field-id", nextId);
        }
        nextId = Math.max(nextId, f.get("field-id").asInt()) + 1;
        fields.add(f);
      }
      out.put(DEFAULT_SPEC_ID, 0);
    }
    if (!out.has(LAST_PARTITION_ID)) {
      int last = FIRST_PARTITION_FIELD_ID - 1;
      for (JsonNode spec : out.get(PARTITION_SPECS)) {
        for (JsonNode field : spec.path("fields")) {
          last = Math.max(last, field.path("field-id").asInt(last));
        }
      }
      out.put(LAST_PARTITION_ID, last);
    }
    if (!out.has(SORT_ORDERS)) {
      out.putArray(SORT_ORDERS).addObject().put(ORDER_ID, 0).putArray("fields");
      out.put(DEFAULT_SORT_ORDER_ID, 0);
    }
    return builder.build("v1 metadata with its list fields derived");
  }
}
