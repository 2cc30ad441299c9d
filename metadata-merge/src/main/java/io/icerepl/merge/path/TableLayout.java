package io.icerepl.merge.path;

import io.icerepl.merge.model.TableMetadata;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  /**
   * The write path properties a replica carries beyond its source's: where the mapping sends the
   * source's default data folder ({@code <location>/data}) or metadata folder ({@code
   * <location>/metadata}), when the source names no write path of that kind and the mapped folder
   * lies outside the replica's location. A user who maps those folders under other roots (a data
   * root, a manifests root) gets a replica whose writers, once it is promoted, write there too;
   * nothing else is added, and a write path the source names is only mapped, never replaced.
   *
   * <p>The replica's metadata files themselves ({@code *.metadata.json}, the version hint, the
   * replicator's state) stay in {@code <replica location>/metadata} whatever {@code
   * write.metadata.path} says: that is where readers and the replicator find them.
   *
   * @param source the source version
   * @param targetLocation the replica location
   * @param mapping the mapping the version's files are placed by
   * @return property name to value, in a stable order; empty when the replica's folders are its
   *     location's defaults
   */
  public static Map<String, String> impliedWritePaths(
      TableMetadata source, String targetLocation, PathMapping mapping) {
    Map<String, String> implied = new LinkedHashMap<>();
    Map<String, String> properties = source.properties();
    boolean dataPathNamed = DATA_PATH_PROPERTIES.stream().anyMatch(p -> named(properties, p));
    if (!dataPathNamed) {
      movedFolder(source.location(), DATA_FOLDER, targetLocation, mapping)
          .ifPresent(root -> implied.put(DATA_PATH_PROPERTIES.get(0), root));
    }
    if (!named(properties, METADATA_PATH_PROPERTY)) {
      movedFolder(source.location(), METADATA_FOLDER, targetLocation, mapping)
          .ifPresent(root -> implied.put(METADATA_PATH_PROPERTY, root));
    }
    return implied;
  }

  /**
   * Where {@code <source>/<folder>} maps, when that is outside the replica's location: a folder the
   * replica's own prefixes place inside it (a moved location's, under {@code data/<name>}) is no
   * root of its own, and the replica's writers keep its defaults.
   */
  private static Optional<String> movedFolder(
      String sourceLocation, String folder, String targetLocation, PathMapping mapping) {
    String sourceFolder = join(sourceLocation, folder);
    if (!mapping.covers(sourceFolder)) {
      return Optional.empty();
    }
    String mapped = mapping.map(sourceFolder);
    boolean inside = TableLocation.of(targetLocation).contains(TableLocation.of(mapped));
    return inside ? Optional.empty() : Optional.of(mapped);
  }

  private static boolean named(Map<String, String> properties, String property) {
    String value = properties.get(property);
    return value != null && !value.isBlank();
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
