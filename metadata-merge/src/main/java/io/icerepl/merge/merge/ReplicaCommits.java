package io.icerepl.merge.merge;

import static io.icerepl.merge.model.TableMetadataFields.LAST_UPDATED_MS;
import static io.icerepl.merge.model.TableMetadataFields.METADATA_FILE;
import static io.icerepl.merge.model.TableMetadataFields.METADATA_LOG;
import static io.icerepl.merge.model.TableMetadataFields.TIMESTAMP_MS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.model.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The fields every replica commit sets the same way, whether it replicates a source version or
 * applies the replica's own retention.
 */
public final class ReplicaCommits {
  private ReplicaCommits() {}

  /**
   * {@code metadata-log}: the replica's own files, the file this commit replaces appended, the
   * oldest dropped past {@code previousVersionsMax}.
   */
  public static void setMetadataLog(
      ObjectNode out,
      Optional<TableMetadata> previous,
      Optional<String> previousFile,
      int previousVersionsMax) {
    List<JsonNode> entries = new ArrayList<>();
    if (previous.isPresent()) {
      JsonNode log = previous.get().field(METADATA_LOG);
      if (log != null) {
        log.forEach(entries::add);
      }
      ObjectNode entry = JsonNodeFactory.instance.objectNode();
      entry.put(TIMESTAMP_MS, previous.get().lastUpdatedMs());
      entry.put(METADATA_FILE, previousFile.orElseThrow());
      entries.add(entry);
    }
    int max = Math.max(0, previousVersionsMax);
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    entries.subList(Math.max(0, entries.size() - max), entries.size()).forEach(array::add);
    out.set(METADATA_LOG, array);
  }

  /** As above, on a builder: the log's entries are held compactly. */
  public static void setMetadataLog(
      TableMetadata.Builder out,
      Optional<TableMetadata> previous,
      Optional<String> previousFile,
      int previousVersionsMax) {
    List<TableMetadata.LogEntry> entries = new ArrayList<>();
    if (previous.isPresent()) {
      entries.addAll(previous.get().metadataLog());
      entries.add(
          new TableMetadata.LogEntry(previous.get().lastUpdatedMs(), previousFile.orElseThrow()));
    }
    int max = Math.max(0, previousVersionsMax);
    out.metadataLog(entries.subList(Math.max(0, entries.size() - max), entries.size()));
  }

  /**
   * {@code last-updated-ms}: the latest of the commit time, the previous replica's and the
   * source's. Iceberg rejects metadata older than its own log entries, and clocks differ.
   */
  public static void setLastUpdatedMs(
      ObjectNode out,
      Optional<TableMetadata> previous,
      long commitTimeMs,
      long sourceLastUpdatedMs) {
    long lastUpdated = Math.max(commitTimeMs, sourceLastUpdatedMs);
    if (previous.isPresent()) {
      lastUpdated = Math.max(lastUpdated, previous.get().lastUpdatedMs());
    }
    out.put(LAST_UPDATED_MS, lastUpdated);
  }

  /**
   * How many previous metadata files a table keeps in its log: its property, else Iceberg's 100.
   */
  public static int previousVersionsMax(TableMetadata metadata) {
    String value = metadata.properties().get("write.metadata.previous-versions-max");
    try {
      return value == null ? 100 : Math.max(1, Integer.parseInt(value.trim()));
    } catch (NumberFormatException e) {
      return 100;
    }
  }
}
