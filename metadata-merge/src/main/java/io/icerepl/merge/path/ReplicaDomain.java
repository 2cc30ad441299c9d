package io.icerepl.merge.path;

import io.icerepl.merge.error.BadInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a replica may hold files: under its own table location, or under the target of a prefix the
 * user mapped explicitly ({@code --map}). Nothing a table's metadata says, and nothing the
 * replicator infers from it, places a file anywhere else, and the replicator deletes nothing
 * anywhere else: a table whose manifests name another table's files must not write over, or expire
 * away, that table's replica beside it.
 *
 * <p>The one home of that rule: the mapping every copy is placed by is {@link #confine confined}
 * here, the copier checks each file it puts in place against the {@link Placement}, and every
 * delete of replica files is checked with {@link #checkDeletes}.
 */
public final class ReplicaDomain {
  private final TableLocation location;
  private final List<TableLocation> mappedTargets;

  private ReplicaDomain(TableLocation location, List<TableLocation> mappedTargets) {
    this.location = location;
    this.mappedTargets = List.copyOf(mappedTargets);
  }

  /** The domain of a replica the user mapped nothing for: its table location alone. */
  public static ReplicaDomain of(String replicaLocation) {
    return of(replicaLocation, List.of());
  }

  /**
   * @param replicaLocation the replica's table location
   * @param explicit the prefixes the user mapped explicitly; their targets are the replica's too
   */
  public static ReplicaDomain of(String replicaLocation, List<PathMapping.Prefix> explicit) {
    Objects.requireNonNull(replicaLocation, "replicaLocation");
    List<TableLocation> targets = new ArrayList<>();
    for (PathMapping.Prefix prefix : explicit) {
      targets.add(TableLocation.of(prefix.target()));
    }
    return new ReplicaDomain(TableLocation.of(replicaLocation), targets);
  }

  /** The replica's table location, as spelled. */
  public String location() {
    return location.spelled();
  }

  /**
   * Whether {@code path}, in any spelling, lies under the replica's location or an explicit map's
   * target. A path with a {@code .} or {@code ..} segment, which could climb out, never does.
   */
  public boolean contains(String path) {
    TableLocation place;
    try {
      place = TableLocation.of(path);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (hasDotSegment(place.canonical())) {
      return false;
    }
    if (location.contains(place)) {
      return true;
    }
    for (TableLocation target : mappedTargets) {
      if (target.contains(place)) {
        return true;
      }
    }
    return false;
  }

  /** Names of the replicator's own files and folders start so: its state, its jobs, its leases. */
  public static final String REPLICATOR_PREFIX = ".replicator-";

  /**
   * Whether {@code path} is a name the replica's own metadata owns, which no copied file may take:
   * a table metadata file ({@code *.metadata.json}, so any version, published or to come) or the
   * version hint under the replica's metadata folder, or anything named {@code .replicator-…} (the
   * state, S3 Batch Operations jobs, the default lease prefix). Manifests, manifest lists and
   * statistics files live in the same folder under other names and stay allowed.
   */
  public boolean ownedByMetadata(String path) {
    TableLocation place;
    try {
      place = TableLocation.of(path);
    } catch (IllegalArgumentException e) {
      return false;
    }
    String canonical = place.canonical();
    for (String segment : canonical.split("/", -1)) {
      if (segment.startsWith(REPLICATOR_PREFIX)) {
        return true;
      }
    }
    TableLocation metadata = TableLocation.of(TableLayout.metadataFolder(location.spelled()));
    if (!metadata.contains(place) || metadata.sameAs(place)) {
      return false;
    }
    String name = canonical.substring(canonical.lastIndexOf('/') + 1);
    return name.equals(TableLayout.VERSION_HINT) || name.endsWith(".metadata.json");
  }

  /**
   * The mapping, checked: every pair's target lies in this domain, so every path it maps does
   * ({@link PathMapping#map} appends only a remainder without {@code .} or {@code ..} segments).
   *
   * @throws BadInputException naming the first pair whose target lies outside
   */
  public Placement confine(PathMapping mapping) {
    for (PathMapping.Prefix prefix : mapping.prefixes()) {
      if (!contains(prefix.target())) {
        throw new BadInputException(
            "Cannot place files of "
                + prefix.source()
                + " under "
                + prefix.target()
                + ": it is outside replica "
                + location.spelled()
                + describeTargets()
                + "; only an explicit --map may place files elsewhere");
      }
    }
    return new Placement(this, mapping);
  }

  /**
   * Fails unless every path lies in this domain: nothing outside the replica is ever deleted.
   *
   * @throws IllegalStateException naming the first path outside, since callers keep such paths out
   *     with {@link #outside} before they delete
   */
  public void checkDeletes(List<String> paths) {
    for (String path : paths) {
      if (!contains(path)) {
        throw new IllegalStateException(
            "Cannot delete " + path + ": it is outside replica " + location.spelled());
      }
    }
  }

  /** The paths of {@code paths} outside this domain, in their order. */
  public List<String> outside(List<String> paths) {
    return paths.stream().filter(p -> !contains(p)).toList();
  }

  private String describeTargets() {
    return mappedTargets.isEmpty()
        ? ""
        : " and every explicit map's target "
            + mappedTargets.stream().map(TableLocation::spelled).toList();
  }

  private static boolean hasDotSegment(String canonical) {
    for (String segment : canonical.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "ReplicaDomain[" + location.spelled() + describeTargets() + "]";
  }

  /**
   * A mapping {@link #confine confined} to a replica's domain, the only form the copier places
   * files by; each file it puts in place is checked again with {@link #check}.
   */
  public static final class Placement {
    private final ReplicaDomain domain;
    private final PathMapping mapping;

    private Placement(ReplicaDomain domain, PathMapping mapping) {
      this.domain = domain;
      this.mapping = mapping;
    }

    public PathMapping mapping() {
      return mapping;
    }

    public ReplicaDomain domain() {
      return domain;
    }

    /** As {@link #check(String, String, String, String)}, for a file of any kind. */
    public void check(String table, String sourcePath, String replicaPath) {
      check(table, "file", sourcePath, replicaPath);
    }

    /**
     * Fails unless a file about to be put in place at {@code replicaPath} lies in the domain, on no
     * name the replica's metadata owns ({@link ReplicaDomain#ownedByMetadata}): a copy there would
     * overwrite a published version or pre-create a future one.
     *
     * @param table the table, for the message
     * @param noun what the file is to the table ("data file"), for the message
     * @param sourcePath the file it copies or rewrites, for the message
     */
    public void check(String table, String noun, String sourcePath, String replicaPath) {
      if (!domain.contains(replicaPath)) {
        throw new BadInputException(
            "Cannot copy "
                + noun
                + " "
                + sourcePath
                + " of table "
                + table
                + " to "
                + replicaPath
                + ": it is outside replica "
                + domain.location()
                + domain.describeTargets());
      }
      if (domain.ownedByMetadata(replicaPath)) {
        throw new BadInputException(
            "Cannot copy "
                + noun
                + " "
                + sourcePath
                + " of table "
                + table
                + ": it would land on "
                + replicaPath
                + ", a name the replica's metadata owns");
      }
    }
  }
}
