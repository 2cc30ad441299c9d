package io.icerepl.merge.verify;

import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.state.ReplicaState;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a replica's paths may point: under its own location, under a replica folder its state maps
 * a source prefix to, or under the target of a prefix a user mapped explicitly (a data root beside
 * the location, see {@link io.icerepl.merge.path.TableLayout#impliedWritePaths}). A path anywhere
 * else (most often a source path left unrewritten) makes a reader of the replica read the source,
 * or fail once the source is gone.
 */
public final class ReplicaPrefixes {
  private final List<String> prefixes;
  private final PathMapping inside;

  private ReplicaPrefixes(List<String> prefixes) {
    this.prefixes = List.copyOf(prefixes);
    // each prefix maps to itself: PathMapping already compares file:, file:/// and plain paths
    // alike
    this.inside = PathMapping.of(prefixes.stream().map(p -> new PathMapping.Prefix(p, p)).toList());
  }

  /**
   * The prefixes of a replica as its state records them: the source prefixes it learned and those a
   * user mapped explicitly.
   */
  public static ReplicaPrefixes of(String location, ReplicaState state) {
    List<PathMapping.Prefix> mapped = new ArrayList<>(state.sourcePrefixes());
    mapped.addAll(state.mappedPrefixes());
    return of(location, mapped);
  }

  /**
   * @param location the replica location
   * @param mapped the (source prefix, replica folder) pairs of the replica's state
   */
  public static ReplicaPrefixes of(String location, List<PathMapping.Prefix> mapped) {
    List<String> prefixes = new ArrayList<>();
    prefixes.add(location);
    mapped.forEach(p -> prefixes.add(p.target()));
    return new ReplicaPrefixes(prefixes);
  }

  /**
   * Whether {@code path} lies under one of the prefixes, with no {@code .} or {@code ..} segment.
   */
  public boolean contains(String path) {
    for (String segment : PathMapping.canonical(path).split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return false;
      }
    }
    return inside.covers(path);
  }

  /** What is wrong with a path outside, for {@link Reference#problem}. */
  public String outside() {
    return "points outside the replica (its location and mapped folders are " + prefixes + ")";
  }
}
