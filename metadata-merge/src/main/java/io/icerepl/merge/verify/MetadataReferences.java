package io.icerepl.merge.verify;

import static io.icerepl.merge.model.TableMetadataFields.FILE_SIZE_IN_BYTES;
import static io.icerepl.merge.model.TableMetadataFields.PARTITION_STATISTICS;
import static io.icerepl.merge.model.TableMetadataFields.SNAPSHOT_ID;
import static io.icerepl.merge.model.TableMetadataFields.STATISTICS;
import static io.icerepl.merge.model.TableMetadataFields.STATISTICS_PATH;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** The paths one table metadata version names itself, before any manifest is read. */
public final class MetadataReferences {
  private MetadataReferences() {}

  /** Every snapshot's {@code manifest-list}. */
  public static List<Reference> manifestLists(TableMetadata metadata) {
    List<Reference> lists = new ArrayList<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      snapshot
          .manifestList()
          .ifPresent(
              list ->
                  lists.add(
                      Reference.of("manifest list", list, "snapshot " + snapshot.snapshotId())));
    }
    return lists;
  }

  /** The v1 {@code manifests} of snapshots that have no manifest list. */
  public static List<Reference> manifests(TableMetadata metadata) {
    List<Reference> manifests = new ArrayList<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      for (String manifest : snapshot.manifests()) {
        manifests.add(Reference.of("manifest", manifest, "snapshot " + snapshot.snapshotId()));
      }
    }
    return manifests;
  }

  /**
   * Every {@code statistics} and {@code partition-statistics} file, with its recorded {@code
   * file-size-in-bytes}.
   *
   * @throws BadInputException when an entry has no path or no size
   */
  public static List<Reference> statistics(TableMetadata metadata) {
    List<Reference> files = new ArrayList<>();
    files.addAll(statistics(metadata, STATISTICS, "statistics file"));
    files.addAll(statistics(metadata, PARTITION_STATISTICS, "partition statistics file"));
    return files;
  }

  /**
   * The other paths the metadata holds, which need not exist but must not lead a reader or a writer
   * out of the replica: its {@code location}, its {@code metadata-log} files and its path-valued
   * properties.
   */
  public static List<Reference> otherPaths(TableMetadata metadata) {
    List<Reference> paths = new ArrayList<>();
    paths.add(Reference.of("location", metadata.location(), "table metadata"));
    for (TableMetadata.LogEntry entry : metadata.metadataLog()) {
      paths.add(Reference.of("metadata file", entry.metadataFile(), "metadata-log"));
    }
    metadata
        .properties()
        .forEach(
            (key, value) -> {
              if (TableLayout.isPathProperty(key)) {
                paths.add(Reference.of("path", value, "property " + key));
              }
            });
    return paths;
  }

  private static List<Reference> statistics(TableMetadata metadata, String field, String noun) {
    List<Reference> files = new ArrayList<>();
    JsonNode entries = metadata.field(field);
    if (entries == null || entries.isNull()) {
      return files;
    }
    if (!entries.isArray()) {
      throw new BadInputException("Cannot read " + field + ": it is not an array");
    }
    for (JsonNode entry : entries) {
      JsonNode id = entry.get(SNAPSHOT_ID);
      JsonNode path = entry.get(STATISTICS_PATH);
      JsonNode size = entry.get(FILE_SIZE_IN_BYTES);
      if (path == null || !path.isTextual() || size == null || !size.canConvertToLong()) {
        throw new BadInputException(
            "Cannot read "
                + field
                + " entry: it has no "
                + STATISTICS_PATH
                + " or no numeric "
                + FILE_SIZE_IN_BYTES);
      }
      files.add(
          new Reference(
              noun,
              path.asText(),
              OptionalLong.of(size.asLong()),
              field + " of snapshot " + (id == null ? "?" : id.asText())));
    }
    return files;
  }
}
