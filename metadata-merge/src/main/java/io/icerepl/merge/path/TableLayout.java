package io.icerepl.merge.path;

import io.icerepl.merge.model.TableMetadata;
import java.util.List;
import java.util.Map;

/**
 * Derives a table's path mapping: the source {@code location} as written in its metadata maps to
 * the replica location, and the write path properties that lie outside it map to the replica's
 * {@code data} or {@code metadata} folder, so a promoted replica writes into its own region.
 */
public final class TableLayout {
  /** Properties whose value is a folder that the table writes files under. */
  public static final List<String> DATA_PATH_PROPERTIES =
      List.of("write.data.path", "write.object-storage.path", "write.folder-storage.path");

  public static final String METADATA_PATH_PROPERTY = "write.metadata.path";

  /** The folder of a path-based table's metadata files, which readers list. */
  public static final String METADATA_FOLDER = "metadata";

  /** The replica folder that mapped data paths go under. */
  public static final String DATA_FOLDER = "data";

  /** The file naming a path-based table's current version, in its metadata folder. */
  public static final String VERSION_HINT = "version-hint.text";

  private TableLayout() {}

  /**
   * The mapping for one source metadata version: the explicit prefixes, the location, then the
   * write paths that neither covers. The longest matching prefix decides each path.
   */
  public static PathMapping mapping(
      TableMetadata source, String targetLocation, List<PathMapping.Prefix> explicit) {
    PathMapping mapping = PathMapping.of(explicit).with(source.location(), targetLocation);
    Map<String, String> properties = source.properties();
    for (String property : DATA_PATH_PROPERTIES) {
      String value = properties.get(property);
      if (value != null && !value.isBlank()) {
        mapping = mapping.with(value, join(targetLocation, DATA_FOLDER));
      }
    }
    String metadataPath = properties.get(METADATA_PATH_PROPERTY);
    if (metadataPath != null && !metadataPath.isBlank()) {
      mapping = mapping.with(metadataPath, join(targetLocation, METADATA_FOLDER));
    }
    return mapping;
  }

  /** The metadata folder of a table at {@code location}. */
  public static String metadataFolder(String location) {
    return join(location, METADATA_FOLDER);
  }

  /** {@code location/child}, with one slash between. */
  public static String join(String location, String child) {
    return (location.endsWith("/") ? location : location + "/") + child;
  }

  /** Whether a property holds a path that must be rewritten for the replica. */
  public static boolean isPathProperty(String key) {
    return DATA_PATH_PROPERTIES.contains(key) || METADATA_PATH_PROPERTY.equals(key);
  }
}
