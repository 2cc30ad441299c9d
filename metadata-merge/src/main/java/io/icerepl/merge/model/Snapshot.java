package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** One entry of {@code snapshots}, a view over its JSON object. */
public final class Snapshot {
  private final ObjectNode json;

  Snapshot(ObjectNode json) {
    this.json = json;
  }

  public ObjectNode json() {
    return json;
  }

  public long snapshotId() {
    return json.get(SNAPSHOT_ID).asLong();
  }

  public Optional<Long> parentSnapshotId() {
    JsonNode node = json.get(PARENT_SNAPSHOT_ID);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asLong());
  }

  public long sequenceNumber() {
    JsonNode node = json.get(SEQUENCE_NUMBER);
    return node == null ? 0L : node.asLong();
  }

  public long timestampMs() {
    return json.get(TIMESTAMP_MS).asLong();
  }

  /** The manifest list, absent for v1 snapshots that list {@code manifests} instead. */
  public Optional<String> manifestList() {
    JsonNode node = json.get(MANIFEST_LIST);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
  }

  /** The v1 {@code manifests} field, empty when the snapshot has a manifest list. */
  public List<String> manifests() {
    List<String> result = new ArrayList<>();
    JsonNode node = json.get(MANIFESTS);
    if (node != null && node.isArray()) {
      node.forEach(m -> result.add(m.asText()));
    }
    return result;
  }
}
