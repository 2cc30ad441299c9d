package io.icerepl.merge.path;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Maps source paths to replica paths by prefix. The longest matching source prefix wins, so a
 * {@code write.data.path} nested in the table location can map elsewhere than the location.
 *
 * <p>Paths are compared in one canonical form: {@code file:/p}, {@code file:///p} and {@code /p}
 * name the same file, and so do {@code s3://b/k}, {@code s3a://b/k} and {@code s3n://b/k}. A mapped
 * path takes the target prefix as it was written, followed by the remainder of the source path.
 */
public final class PathMapping {

  /** One (source prefix → target prefix) pair. */
  public record Prefix(String source, String target) {
    public Prefix {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(target, "target");
    }
  }

  private final List<Prefix> prefixes;
  private final List<String> canonicalSources;

  private PathMapping(List<Prefix> prefixes) {
    List<Prefix> sorted = new ArrayList<>(prefixes);
    // Longest source prefix first: the most specific mapping decides.
    sorted.sort(Comparator.comparingInt((Prefix p) -> canonical(p.source()).length()).reversed());
    this.prefixes = List.copyOf(sorted);
    this.canonicalSources =
        this.prefixes.stream().map(p -> withSlash(canonical(p.source()))).toList();
  }

  public static PathMapping of(List<Prefix> prefixes) {
    return new PathMapping(prefixes);
  }

  public static PathMapping of(String sourcePrefix, String targetPrefix) {
    return new PathMapping(List.of(new Prefix(sourcePrefix, targetPrefix)));
  }

  /** A mapping with one more pair, unless an equal source prefix is already mapped. */
  public PathMapping with(String sourcePrefix, String targetPrefix) {
    if (covers(sourcePrefix)) {
      return this;
    }
    List<Prefix> more = new ArrayList<>(prefixes);
    more.add(new Prefix(sourcePrefix, targetPrefix));
    return new PathMapping(more);
  }

  public List<Prefix> prefixes() {
    return prefixes;
  }

  /** Whether {@code path} lies under a mapped source prefix (or is one). */
  public boolean covers(String path) {
    String canonical = withSlash(canonical(path));
    return canonicalSources.stream().anyMatch(canonical::startsWith);
  }

  /**
   * The replica path for a source path.
   *
   * @throws PathOutsideMappingException when no source prefix covers the path
   * @throws BadInputException when the path has {@code .} or {@code ..} segments, which could
   *     escape the target prefix
   */
  public String map(String sourcePath) {
    Objects.requireNonNull(sourcePath, "sourcePath");
    rejectDotSegments(sourcePath);
    String canonical = canonical(sourcePath);
    for (int i = 0; i < prefixes.size(); i++) {
      String prefix = canonicalSources.get(i);
      String bare = prefix.substring(0, prefix.length() - 1);
      if (canonical.equals(bare)) {
        return stripSlash(prefixes.get(i).target());
      }
      if (canonical.startsWith(prefix)) {
        return withSlash(prefixes.get(i).target()) + canonical.substring(prefix.length());
      }
    }
    throw new PathOutsideMappingException(
        "Cannot map path "
            + sourcePath
            + ": it is outside every mapped source prefix "
            + prefixes.stream().map(Prefix::source).toList());
  }

  /**
   * Canonical form for comparing: local paths as {@code /p}, the S3 schemes as {@code s3://} (Spark
   * through S3A writes {@code s3a://} where other engines write {@code s3://} for the same object),
   * other schemes unchanged.
   */
  public static String canonical(String path) {
    if (path.startsWith("s3a://") || path.startsWith("s3n://")) {
      return "s3" + path.substring("s3a".length());
    }
    if (path.startsWith("file:///")) {
      return path.substring("file://".length());
    }
    if (path.startsWith("file://localhost/")) {
      return path.substring("file://localhost".length());
    }
    if (path.startsWith("file:/")) {
      return path.substring("file:".length());
    }
    return path;
  }

  private static void rejectDotSegments(String path) {
    for (String segment : canonical(path).split("/", -1)) {
      if (segment.equals("..") || segment.equals(".")) {
        throw new BadInputException(
            "Cannot map path " + path + ": it has a '" + segment + "' segment");
      }
    }
  }

  private static String withSlash(String path) {
    return path.endsWith("/") ? path : path + "/";
  }

  private static String stripSlash(String path) {
    return path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
  }

  @Override
  public String toString() {
    return "PathMapping" + prefixes;
  }
}
