package io.icerepl.merge.retention;

import static io.icerepl.merge.model.TableMetadataFields.REFS;
import static io.icerepl.merge.model.TableMetadataFields.REF_TYPE;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_ID;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.merge.model.TableMetadata;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of {@code refs} with the retention fields the spec lets a ref override. {@link
 * TableMetadata#refs()} gives only the snapshot ids; retention needs the rest.
 */
record SnapshotRef(
    String name,
    long snapshotId,
    boolean isBranch,
    Optional<Integer> minSnapshotsToKeep,
    Optional<Long> maxSnapshotAgeMs,
    Optional<Long> maxRefAgeMs) {

  static final String MAIN = "main";
  static final String MIN_SNAPSHOTS_TO_KEEP = "min-snapshots-to-keep";
  static final String MAX_SNAPSHOT_AGE_MS = "max-snapshot-age-ms";
  static final String MAX_REF_AGE_MS = "max-ref-age-ms";

  boolean isMain() {
    return MAIN.equals(name);
  }

  /** The branch's min-snapshots-to-keep, or the table-level one when the ref sets none. */
  int minSnapshotsToKeep(RetentionPolicy table) {
    return minSnapshotsToKeep.orElse(table.minSnapshotsToKeep());
  }

  long maxSnapshotAgeMs(RetentionPolicy table) {
    return maxSnapshotAgeMs.orElse(table.maxSnapshotAgeMs());
  }

  long maxRefAgeMs(RetentionPolicy table) {
    return maxRefAgeMs.orElse(table.maxRefAgeMs());
  }

  /**
   * The table's refs in the order the metadata lists them. A table without a {@code main} ref but
   * with a current snapshot (v1 metadata written before refs existed) has an implied {@code main}
   * branch at the current snapshot, as Iceberg reads it.
   */
  static List<SnapshotRef> readAll(TableMetadata metadata) {
    List<SnapshotRef> refs = new ArrayList<>();
    JsonNode node = metadata.field(REFS);
    if (node != null && node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        refs.add(read(field.getKey(), field.getValue()));
      }
    }
    boolean hasMain = refs.stream().anyMatch(SnapshotRef::isMain);
    Optional<Long> current = metadata.currentSnapshotId();
    if (!hasMain && current.isPresent()) {
      refs.add(
          new SnapshotRef(
              MAIN, current.get(), true, Optional.empty(), Optional.empty(), Optional.empty()));
    }
    return refs;
  }

  private static SnapshotRef read(String name, JsonNode ref) {
    JsonNode type = ref.get(REF_TYPE);
    boolean branch;
    if ("branch".equals(type.asText())) {
      branch = true;
    } else if ("tag".equals(type.asText())) {
      branch = false;
    } else {
      throw new IllegalArgumentException(
          "Cannot read ref '"
              + name
              + "': unknown type '"
              + type.asText()
              + "' (expected branch or tag)");
    }
    // The spec defines min-snapshots-to-keep and max-snapshot-age-ms for branches only: a tag has
    // no ancestors to keep, so a tag's values are ignored like Iceberg ignores them.
    Optional<Long> min = branch ? positive(name, ref, MIN_SNAPSHOTS_TO_KEEP) : Optional.empty();
    if (min.isPresent() && min.get() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Cannot read ref '"
              + name
              + "': "
              + MIN_SNAPSHOTS_TO_KEEP
              + " "
              + min.get()
              + " is too large");
    }
    return new SnapshotRef(
        name,
        ref.get(SNAPSHOT_ID).asLong(),
        branch,
        min.map(Long::intValue),
        branch ? positive(name, ref, MAX_SNAPSHOT_AGE_MS) : Optional.empty(),
        positive(name, ref, MAX_REF_AGE_MS));
  }

  private static Optional<Long> positive(String name, JsonNode ref, String field) {
    JsonNode value = ref.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() <= 0) {
      throw new IllegalArgumentException(
          "Cannot read ref '"
              + name
              + "': "
              + field
              + " must be a positive whole number, got "
              + value);
    }
    return Optional.of(value.asLong());
  }
}
