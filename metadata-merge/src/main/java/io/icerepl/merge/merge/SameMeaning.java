package io.icerepl.merge.merge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Whether two schemas, partition specs or sort orders with the same id mean the same, as Iceberg's
 * parsed equality decides. Writers spell the same value differently: PyIceberg writes {@code
 * "identifier-field-ids": []} where the Java library omits it, some write optional fields as {@code
 * null}, keys come in any order, and transforms, primitive types and sort directions are read
 * case-insensitively. Anything else — a type, name, id, required-ness, doc, default, spec field,
 * transform or sort direction — is a real difference.
 */
public final class SameMeaning {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String IDENTIFIER_FIELD_IDS = "identifier-field-ids";
  private static final String SOURCE_ID = "source-id";
  private static final String SOURCE_IDS = "source-ids";

  private SameMeaning() {}

  public static boolean schemas(JsonNode a, JsonNode b) {
    return canonicalSchema(a).equals(canonicalSchema(b));
  }

  public static boolean partitionSpecs(JsonNode a, JsonNode b) {
    return canonicalFields(a).equals(canonicalFields(b));
  }

  public static boolean sortOrders(JsonNode a, JsonNode b) {
    return canonicalFields(a).equals(canonicalFields(b));
  }

  private static JsonNode canonicalSchema(JsonNode schema) {
    ObjectNode out = (ObjectNode) canonicalType(schema);
    JsonNode ids = out.remove(IDENTIFIER_FIELD_IDS);
    if (ids != null && ids.isArray() && !ids.isEmpty()) {
      // a set in Iceberg: order carries no meaning
      TreeSet<Long> sorted = new TreeSet<>();
      ids.forEach(id -> sorted.add(id.asLong()));
      ArrayNode array = out.putArray(IDENTIFIER_FIELD_IDS);
      sorted.forEach(array::add);
    }
    return out;
  }

  /**
   * A type: a primitive's name in lower case without spaces ({@code decimal(9, 2)}), a nested type
   * with its fields canonical; null-valued fields dropped (absent and null both mean "none").
   */
  private static JsonNode canonicalType(JsonNode type) {
    if (type.isTextual()) {
      return NODES.textNode(type.asText().toLowerCase(Locale.ROOT).replaceAll("\\s", ""));
    }
    if (type.isArray()) {
      ArrayNode out = NODES.arrayNode();
      type.forEach(element -> out.add(canonicalType(element)));
      return out;
    }
    if (!type.isObject()) {
      return type;
    }
    ObjectNode out = NODES.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = type.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode value = field.getValue();
      if (value.isNull()) {
        continue;
      }
      boolean isType =
          switch (field.getKey()) {
            case "type", "fields", "element", "key", "value" -> true;
            default -> false;
          };
      out.set(field.getKey(), isType ? canonicalType(value) : value);
    }
    return out;
  }

  /**
   * A partition spec or sort order: its fields in their order, with transforms, directions and null
   * orders in lower case, one {@code source-ids} entry written as {@code source-id}, null-valued
   * fields dropped.
   */
  private static JsonNode canonicalFields(JsonNode specOrOrder) {
    ObjectNode out = withoutNulls(specOrOrder);
    JsonNode fields = out.get("fields");
    if (fields != null && fields.isArray()) {
      ArrayNode canonical = NODES.arrayNode();
      for (JsonNode field : fields) {
        ObjectNode f = withoutNulls(field);
        for (String key : new String[] {"transform", "direction", "null-order"}) {
          JsonNode value = f.get(key);
          if (value != null && value.isTextual()) {
            f.put(key, value.asText().toLowerCase(Locale.ROOT));
          }
        }
        JsonNode sourceIds = f.get(SOURCE_IDS);
        if (sourceIds != null
            && sourceIds.isArray()
            && sourceIds.size() == 1
            && !f.has(SOURCE_ID)) {
          f.remove(SOURCE_IDS);
          f.set(SOURCE_ID, sourceIds.get(0));
        }
        canonical.add(f);
      }
      out.set("fields", canonical);
    }
    return out;
  }

  private static ObjectNode withoutNulls(JsonNode node) {
    ObjectNode out = NODES.objectNode();
    if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              e -> {
                if (!e.getValue().isNull()) {
                  out.set(e.getKey(), e.getValue());
                }
              });
    }
    return out;
  }
}
