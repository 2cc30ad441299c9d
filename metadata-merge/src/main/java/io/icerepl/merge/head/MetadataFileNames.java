package io.icerepl.merge.head;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names of metadata JSON files and their version numbers, as common readers resolve them: {@code
 * v<V>.metadata.json} (Hadoop tables) and {@code <V>-<uuid>.metadata.json} (catalogs), optionally
 * compressed as {@code .gz.metadata.json} or {@code .metadata.json.gz}.
 */
public final class MetadataFileNames {
  private static final Pattern NAME =
      Pattern.compile("^v?(\\d+)(-[^/]*?)?(\\.gz)?\\.metadata\\.json(\\.gz)?$");

  private MetadataFileNames() {}

  /** The file name part of a path. */
  public static String fileName(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.substring(slash + 1);
  }

  public static boolean isMetadataFile(String path) {
    return NAME.matcher(fileName(path)).matches();
  }

  /** The version number a metadata file name carries, if it follows one of the conventions. */
  public static OptionalLong version(String path) {
    Matcher m = NAME.matcher(fileName(path));
    if (!m.matches()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(m.group(1)));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Whether a name follows the catalogs' {@code <V>-<uuid>.metadata.json}: such a file exists
   * before its catalog commit, which may fail and leave it behind.
   */
  public static boolean isCatalogStyle(String path) {
    Matcher m = NAME.matcher(fileName(path));
    return m.matches()
        && m.group(2) != null
        && !fileName(path).startsWith("v")
        && version(path).isPresent();
  }
}
