package io.icerepl.merge.path;

import java.util.Optional;

/**
 * How a table spells a prefix it already holds files under. Iceberg matches a position delete's
 * {@code file_path} (and a deletion vector's {@code referenced_data_file}) to a data file by exact
 * string, so paths written into an existing table must use the spelling its own manifests use,
 * whichever of the spellings that name the same place ({@code file:/p}, {@code file:///p}, {@code
 * /p}; {@code s3://}, {@code s3a://}, {@code s3n://}; Azure's {@code abfss://…dfs…} and {@code
 * wasbs://…blob…}) the user typed.
 */
public final class PathSpelling {
  private PathSpelling() {}

  /**
   * {@code location} as {@code existing} spells it when both name the same place, else {@code
   * location} unchanged.
   */
  public static String as(String location, String existing) {
    if (existing == null || existing.isBlank()) {
      return location;
    }
    return bare(PathMapping.canonical(location)).equals(bare(PathMapping.canonical(existing)))
        ? bare(existing)
        : location;
  }

  /**
   * The spelling of {@code prefix} that {@code path} uses, when {@code path} lies under {@code
   * prefix} (e.g. {@code file:/p} for {@code file:/p/data/x.parquet} under {@code file:///p}).
   */
  public static Optional<String> prefixIn(String prefix, String path) {
    String canonicalPrefix = bare(PathMapping.canonical(prefix));
    String canonicalPath = PathMapping.canonical(path);
    if (!canonicalPath.startsWith(canonicalPrefix + "/")) {
      return Optional.empty();
    }
    String remainder = canonicalPath.substring(canonicalPrefix.length());
    return path.endsWith(remainder)
        ? Optional.of(path.substring(0, path.length() - remainder.length()))
        : Optional.empty();
  }

  private static String bare(String path) {
    String bare = path;
    while (bare.endsWith("/") && bare.length() > 1 && !bare.endsWith("://")) {
      bare = bare.substring(0, bare.length() - 1);
    }
    return bare;
  }
}
