package io.icerepl.merge.path;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Maps source paths to replica paths by prefix. The longest matching source prefix wins, so a
 * {@code write.data.path} nested in the table location can map elsewhere than the location.
 *
 * <p>Paths are compared in one canonical form: {@code file:/p}, {@code file:///p} and {@code /p}
 * name the same file, and so do {@code s3://b/k}, {@code s3a://b/k} and {@code s3n://b/k}, and
 * Azure's {@code wasbs://c@a.blob.core.windows.net/k} and {@code
 * abfss://c@a.dfs.core.windows.net/k}. A mapped path takes the target prefix as it was written,
 * followed by the remainder of the source path.
 *
 * <p>Two mappings with the same prefixes are equal and map every path alike: a snapshot mapped by
 * one is known to match the source's mapped by the other without mapping it again.
 */
public final class PathMapping implements UnaryOperator<String> {

  /** One (source prefix → target prefix) pair. */
  public record Prefix(String source, String target) {
    public Prefix {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(target, "target");
    }
  }

  private final List<Prefix> prefixes;

  /** Each source prefix in canonical form with a trailing slash, in {@link #prefixes}' order. */
  private final String[] canonicalSources;

  /** Each target prefix with a trailing slash, what a path under the source prefix starts with. */
  private final String[] targetsWithSlash;

  /** Each target prefix without a trailing slash, what the source prefix itself maps to. */
  private final String[] bareTargets;

  /** The last other instance found equal, or null; see {@link #equals}. */
  private PathMapping knownEqual;

  private PathMapping(List<Prefix> prefixes) {
    List<Prefix> sorted = new ArrayList<>(prefixes);
    // Longest source prefix first: the most specific mapping decides.
    sorted.sort(Comparator.comparingInt((Prefix p) -> canonical(p.source()).length()).reversed());
    this.prefixes = List.copyOf(sorted);
    int n = this.prefixes.size();
    canonicalSources = new String[n];
    targetsWithSlash = new String[n];
    bareTargets = new String[n];
    for (int i = 0; i < n; i++) {
      Prefix prefix = this.prefixes.get(i);
      canonicalSources[i] = withSlash(canonical(prefix.source()));
      targetsWithSlash[i] = withSlash(prefix.target());
      bareTargets[i] = stripSlash(prefix.target());
    }
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
    for (String source : canonicalSources) {
      if (canonical.startsWith(source)) {
        return true;
      }
    }
    return false;
  }

  /** The source prefix, as written, that maps {@code path}: the longest covering it. */
  public Optional<String> sourcePrefixOf(String path) {
    String canonical = withSlash(canonical(path));
    for (int i = 0; i < canonicalSources.length; i++) {
      if (canonical.startsWith(canonicalSources[i])) {
        return Optional.of(prefixes.get(i).source());
      }
    }
    return Optional.empty();
  }

  /**
   * The replica path for a source path.
   *
   * @throws PathOutsideMappingException when no source prefix covers the path
   * @throws BadInputException when the path has {@code .} or {@code ..} segments, which could
   *     escape the target prefix
   */
  public String map(String sourcePath) {
    // Called for every path of every commit: compared in place, without splitting or copying the
    // path, as a history of many snapshots maps each one's manifest list.
    Objects.requireNonNull(sourcePath, "sourcePath");
    rejectDotSegments(sourcePath);
    String path = storeSpelling(sourcePath);
    int start = canonicalStart(path);
    int length = path.length() - start;
    for (int i = 0; i < canonicalSources.length; i++) {
      String prefix = canonicalSources[i];
      int bare = prefix.length() - 1;
      if (length == bare && path.regionMatches(start, prefix, 0, bare)) {
        return bareTargets[i];
      }
      if (length > bare && path.regionMatches(start, prefix, 0, prefix.length())) {
        return targetsWithSlash[i].concat(path.substring(start + prefix.length()));
      }
    }
    throw new PathOutsideMappingException(
        sourcePath,
        "Cannot map path "
            + sourcePath
            + ": it is outside every mapped source prefix "
            + prefixes.stream().map(Prefix::source).toList());
  }

  /** Canonical form for comparing: local paths as {@code /p}, other schemes unchanged. */
  public static String canonical(String path) {
    String spelled = storeSpelling(path);
    return spelled.substring(canonicalStart(spelled));
  }

  /** Whether two paths name the same file: equal in {@link #canonical} form. */
  public static boolean sameFile(String a, String b) {
    a = storeSpelling(a);
    b = storeSpelling(b);
    int startA = canonicalStart(a);
    int startB = canonicalStart(b);
    int length = a.length() - startA;
    return length == b.length() - startB && a.regionMatches(startA, b, startB, length);
  }

  /**
   * One spelling per store for the schemes that name the same objects: {@code s3a://} and {@code
   * s3n://} spelled {@code s3://} (Spark through S3A writes {@code s3a://} where other engines
   * write {@code s3://} for the same object); Azure's {@code wasb://}, {@code wasbs://} and {@code
   * abfs://} spelled {@code abfss://}, its {@code <account>.blob.<suffix>} host spelled {@code
   * <account>.dfs.<suffix>} (an ADLS Gen2 account serves one namespace through both endpoints, and
   * Hadoop's WASB and ABFS drivers name it each their way); any other path as it is, without a
   * copy.
   */
  private static String storeSpelling(String path) {
    boolean alias =
        path.length() > 5
            && path.startsWith("s3")
            && (path.charAt(2) == 'a' || path.charAt(2) == 'n')
            && path.startsWith("://", 3);
    if (alias) {
      return "s3".concat(path.substring(3));
    }
    return path.startsWith("wasb") || path.startsWith("abfs") ? azureSpelling(path) : path;
  }

  /** {@code abfss://<container>@<account>.dfs.<suffix>/…} for every Azure spelling of a path. */
  private static String azureSpelling(String path) {
    int scheme = path.indexOf("://");
    String name = scheme < 0 ? "" : path.substring(0, scheme);
    if (!(name.equals("wasb") || name.equals("wasbs") || name.equals("abfs"))
        && !name.equals("abfss")) {
      return path;
    }
    int authority = scheme + 3;
    int end = path.indexOf('/', authority);
    String host = end < 0 ? path.substring(authority) : path.substring(authority, end);
    int blob = host.indexOf(".blob.");
    if (name.equals("abfss") && blob < 0) {
      return path;
    }
    String canonicalHost =
        blob < 0 ? host : host.substring(0, blob) + ".dfs." + host.substring(blob + 6);
    return "abfss://" + canonicalHost + (end < 0 ? "" : path.substring(end));
  }

  /** Where {@link #canonical} form starts in {@code path}. */
  private static int canonicalStart(String path) {
    if (path.startsWith("file:///")) {
      return "file://".length();
    }
    if (path.startsWith("file://localhost/")) {
      return "file://localhost".length();
    }
    if (path.startsWith("file:/")) {
      return "file:".length();
    }
    return 0;
  }

  /** Fails on a {@code .} or {@code ..} segment of the canonical form, found without splitting. */
  private static void rejectDotSegments(String path) {
    int start = canonicalStart(path);
    int n = path.length();
    for (int dot = path.indexOf('.', start); dot >= 0; dot = path.indexOf('.', dot + 1)) {
      if (dot != start && path.charAt(dot - 1) != '/') {
        continue; // not at a segment's start
      }
      int end = dot + 1;
      if (end < n && path.charAt(end) == '.') {
        end++;
      }
      if (end == n || path.charAt(end) == '/') {
        throw new BadInputException(
            "Cannot map path " + path + ": it has a '" + path.substring(dot, end) + "' segment");
      }
    }
  }

  private static String withSlash(String path) {
    return path.endsWith("/") ? path : path + "/";
  }

  private static String stripSlash(String path) {
    return path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
  }

  /** {@link #map}, for callers that take any path map. */
  @Override
  public String apply(String sourcePath) {
    return map(sourcePath);
  }

  /**
   * Equal prefixes, in the same order. The last equal mapping met is remembered: a merge asks this
   * of every snapshot of a history, each mapped by the same earlier instance.
   */
  @Override
  public boolean equals(Object other) {
    if (other == this || (other != null && other == knownEqual)) {
      return true;
    }
    if (!(other instanceof PathMapping mapping) || !prefixes.equals(mapping.prefixes)) {
      return false;
    }
    knownEqual = mapping; // a benign race: any thread's write is an equal mapping
    return true;
  }

  @Override
  public int hashCode() {
    return prefixes.hashCode();
  }

  @Override
  public String toString() {
    return "PathMapping" + prefixes;
  }
}
