package io.icerepl.merge.path;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Where files no metadata version declares a prefix for are placed, when the replica's location
 * mirrors its source's: {@code s3://a/wh/db/t} replicated to {@code s3://b/wh/db/t} end in the same
 * relative path {@code wh/db/t}, so the source's files lie under one undeclared root, {@code
 * s3://a}, and each keeps its layout below that root inside the replica: {@code
 * s3://a/ext/data/f.parquet} lands at {@code s3://b/wh/db/t/data/a-<hash>/ext/data/f.parquet}.
 *
 * <p>The root's folder is {@code <replica>/data/<name>}, named from the root as {@link
 * SourcePrefixes#replicaFolderFor} names every prefix's folder (its readable tail and a hash of the
 * whole root): the same root always gets the same folder, two roots never share one, and it lies
 * inside the replica's own location, so a table naming another table's files copies them into its
 * own replica, never over the replica beside it (see {@link ReplicaDomain}). The pairs are recorded
 * in the replica's state before a file is put under them, so every later run places alike.
 *
 * <p>It serves files no version of the table's metadata declares a prefix for: a table whose
 * earlier metadata files are gone ({@code write.metadata.delete-after-commit.enabled}, or a
 * backfill after several commits) while its data path moved meanwhile, or a manifest naming a file
 * of another table. Declared prefixes keep their own folders and win over the mirror, whose root is
 * the shortest prefix of all.
 *
 * <p>When the table may only name files under allowed roots, the mirror is cut to them: each
 * allowed root under the source root is mirrored on its own, to its place below the root's folder,
 * so the mirror never reaches a file confinement refuses.
 */
public final class MirrorMapping {
  private MirrorMapping() {}

  /** What {@link #infer} found: the pairs to map, and the relative path both locations end in. */
  public record Inferred(List<PathMapping.Prefix> prefixes, String commonPath) {
    public Inferred {
      prefixes = List.copyOf(prefixes);
    }
  }

  /**
   * @param sourceLocation the source table's location
   * @param targetLocation the replica's location, as spelled for its files
   * @param allowedRoots the prefixes the table may name files under; empty: any
   * @return the mirror pairs, or empty when the two locations end in no common relative path, or
   *     the source root holds the replica (a tree mirrored into itself), or no allowed root lies
   *     under the source root
   */
  public static Optional<Inferred> infer(
      String sourceLocation, String targetLocation, List<String> allowedRoots) {
    Split source = Split.of(sourceLocation);
    Split target = Split.of(targetLocation);
    int common = 0;
    while (common < source.segments().size()
        && common < target.segments().size()
        && source.segment(common).equals(target.segment(common))) {
      common++;
    }
    // a local root keeps one segment: "/" mirrored is every file of the machine
    int keepSource = source.authority().isEmpty() ? 1 : 0;
    int keepTarget = target.authority().isEmpty() ? 1 : 0;
    common =
        Math.min(
            common,
            Math.min(source.segments().size() - keepSource, target.segments().size() - keepTarget));
    if (common < 1) {
      return Optional.empty();
    }
    String sourceRoot = stripSegments(sourceLocation, common);
    if (TableLocation.of(sourceRoot).overlaps(TableLocation.of(targetLocation))) {
      return Optional.empty();
    }
    String targetRoot = SourcePrefixes.replicaFolderFor(targetLocation, sourceRoot);
    if (TableLocation.of(sourceRoot).overlaps(TableLocation.of(targetRoot))) {
      return Optional.empty();
    }
    List<PathMapping.Prefix> pairs = clip(sourceRoot, targetRoot, allowedRoots);
    if (pairs.isEmpty()) {
      return Optional.empty();
    }
    List<String> tail = new ArrayList<>(source.segments().subList(0, common));
    Collections.reverse(tail);
    return Optional.of(new Inferred(pairs, String.join("/", tail)));
  }

  private static List<PathMapping.Prefix> clip(
      String sourceRoot, String targetRoot, List<String> allowedRoots) {
    if (allowedRoots.isEmpty()) {
      return List.of(new PathMapping.Prefix(sourceRoot, targetRoot));
    }
    TableLocation root = TableLocation.of(sourceRoot);
    List<PathMapping.Prefix> pairs = new ArrayList<>();
    for (String allowed : allowedRoots) {
      TableLocation allowedRoot = TableLocation.of(allowed);
      if (allowedRoot.contains(root)) {
        return List.of(new PathMapping.Prefix(sourceRoot, targetRoot));
      }
      if (root.contains(allowedRoot)) {
        String below =
            allowedRoot.canonical().substring(root.canonical().length()).replaceAll("^/+", "");
        pairs.add(new PathMapping.Prefix(allowed, TableLayout.join(targetRoot, below)));
      }
    }
    return pairs;
  }

  /** {@code location} without its last {@code count} segments, as it was spelled. */
  private static String stripSegments(String location, int count) {
    String path = location;
    for (int i = 0; i < count; i++) {
      path = path.replaceAll("/+$", "");
      path = path.substring(0, path.lastIndexOf('/'));
    }
    return path;
  }

  /**
   * A location in canonical form as its authority ({@code s3://b}, empty for a local path) and its
   * segments, last first.
   */
  private record Split(String authority, List<String> segments) {
    static Split of(String location) {
      String canonical = TableLocation.of(location).canonical();
      int scheme = canonical.indexOf("://");
      String authority = "";
      String path = canonical;
      if (scheme >= 0) {
        int slash = canonical.indexOf('/', scheme + 3);
        authority = slash < 0 ? canonical : canonical.substring(0, slash);
        path = slash < 0 ? "" : canonical.substring(slash);
      }
      List<String> segments = new ArrayList<>();
      for (String segment : path.split("/+")) {
        if (!segment.isEmpty()) {
          segments.add(segment);
        }
      }
      Collections.reverse(segments);
      return new Split(authority, segments);
    }

    String segment(int fromLast) {
      return segments.get(fromLast);
    }
  }
}
