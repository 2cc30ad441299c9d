package io.icerepl.merge.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;

/**
 * The snapshots of one metadata file as a forest of parent links, checked once when the metadata is
 * read: ids are unique and no parent chain comes back to itself. A parent the table no longer holds
 * (expired, as engines leave {@code parent-snapshot-id} behind) ends its chain; that is a root, not
 * an error. Every walk along parents goes through {@link #ancestors}, which is finite by
 * construction, so a hand-edited history that loops is refused where it is read instead of spinning
 * whoever walks it.
 *
 * <p>Held in primitive arrays (open addressing, at most three quarters full, and each snapshot's
 * parent position): a history holds up to millions of snapshots.
 */
public final class SnapshotGraph {
  private static final int NONE = -1;
  private static final int MAX_IDS_NAMED = 5;

  private final List<Snapshot> snapshots;
  private final long[] slotIds;
  private final int[] slotPositions;

  /** Each snapshot's parent's position in {@link #snapshots}, {@link #NONE} when not held. */
  private final int[] parents;

  /** Why the snapshots form no forest of parent links, null when they do. */
  private final String problem;

  private SnapshotGraph(List<Snapshot> snapshots) {
    this.snapshots = snapshots;
    int capacity = 16;
    while (capacity / 4 * 3 < snapshots.size()) {
      capacity *= 2;
    }
    slotIds = new long[capacity];
    slotPositions = new int[capacity];
    Arrays.fill(slotPositions, NONE);
    parents = new int[snapshots.size()];
    problem = index();
  }

  /** The graph of {@code snapshots}; {@link #problemIn} says whether they form a forest. */
  static SnapshotGraph of(List<Snapshot> snapshots) {
    return new SnapshotGraph(snapshots);
  }

  /**
   * Why {@code metadata}'s snapshots cannot be read as a table's history, else empty: they form no
   * forest, or {@code current-snapshot-id} or a ref names a snapshot {@code snapshots} lacks (which
   * Iceberg's own parser refuses; a current id below 0 means none, as there).
   */
  static Optional<String> problemIn(TableMetadata metadata) {
    SnapshotGraph graph = metadata.graph();
    if (graph.problem != null) {
      return Optional.of(graph.problem);
    }
    Optional<Long> current = metadata.currentSnapshotId();
    if (current.isPresent() && current.get() >= 0 && !graph.contains(current.get())) {
      return Optional.of("current-snapshot-id " + current.get() + " is not among its snapshots");
    }
    for (var ref : metadata.refs().entrySet()) {
      if (!graph.contains(ref.getValue())) {
        return Optional.of(
            "ref '"
                + ref.getKey()
                + "' names snapshot "
                + ref.getValue()
                + ", which is not among its snapshots");
      }
    }
    return Optional.empty();
  }

  /**
   * Why a snapshot's manifest list, as read, is a metadata file of the table ({@code file} itself
   * or one its {@code metadata-log} names), else empty: a manifest list is an Avro file of its own,
   * so such a path is corruption, and copying it would put Avro where the replica's version is.
   */
  static Optional<String> manifestListProblemIn(TableMetadata metadata, String file) {
    Set<String> metadataFiles = new HashSet<>();
    metadataFiles.add(file);
    metadata.metadataLog().forEach(entry -> metadataFiles.add(entry.metadataFile()));
    for (Snapshot snapshot : metadata.snapshots()) {
      Optional<String> list = snapshot.manifestList();
      if (list.isPresent() && metadataFiles.contains(list.get())) {
        return Optional.of(
            "snapshot "
                + snapshot.snapshotId()
                + "'s manifest-list "
                + list.get()
                + " is a metadata file of the table, not a manifest list");
      }
    }
    return Optional.empty();
  }

  public boolean contains(long snapshotId) {
    return position(snapshotId) != NONE;
  }

  public Optional<Snapshot> snapshot(long snapshotId) {
    int position = position(snapshotId);
    return position == NONE ? Optional.empty() : Optional.of(snapshots.get(position));
  }

  /**
   * The snapshot {@code snapshotId} and its ancestors, newest first, while the table holds them:
   * empty when it does not hold {@code snapshotId}, ending at the first parent it no longer holds.
   */
  public Iterable<Snapshot> ancestors(long snapshotId) {
    int start = position(snapshotId);
    return () ->
        new Iterator<>() {
          private int next = start;

          @Override
          public boolean hasNext() {
            return next != NONE;
          }

          @Override
          public Snapshot next() {
            if (next == NONE) {
              throw new NoSuchElementException();
            }
            Snapshot snapshot = snapshots.get(next);
            next = parents[next];
            return snapshot;
          }
        };
  }

  private int position(long snapshotId) {
    return slotPositions[slot(snapshotId)];
  }

  /** Indexes the ids, then the parents, then looks for a chain that comes back to itself. */
  private String index() {
    for (int i = 0; i < snapshots.size(); i++) {
      long id = snapshots.get(i).snapshotId();
      int slot = slot(id);
      if (slotPositions[slot] != NONE) {
        return "snapshot " + id + " appears twice in 'snapshots'";
      }
      slotIds[slot] = id;
      slotPositions[slot] = i;
    }
    for (int i = 0; i < snapshots.size(); i++) {
      Optional<Long> parent = snapshots.get(i).parentSnapshotId();
      parents[i] = parent.isPresent() ? position(parent.get()) : NONE;
    }
    return cycle();
  }

  /**
   * Follows each chain from every snapshot not yet seen, marking the chain being followed; reaching
   * a mark of the same chain is a cycle. Each snapshot is followed once: linear in the history.
   */
  private String cycle() {
    int[] seenFrom = new int[snapshots.size()];
    Arrays.fill(seenFrom, NONE);
    for (int start = 0; start < snapshots.size(); start++) {
      int at = start;
      while (at != NONE && seenFrom[at] == NONE) {
        seenFrom[at] = start;
        at = parents[at];
      }
      if (at != NONE && seenFrom[at] == start) {
        return describeCycle(at);
      }
    }
    return null;
  }

  private String describeCycle(int first) {
    List<Long> ids = new ArrayList<>();
    int at = first;
    do {
      ids.add(snapshots.get(at).snapshotId());
      at = parents[at];
    } while (at != first);
    if (ids.size() == 1) {
      return "snapshot " + ids.get(0) + " names itself as parent (a cycle)";
    }
    if (ids.size() == 2) {
      return "snapshots "
          + ids.get(0)
          + " and "
          + ids.get(1)
          + " name each other as parent (a cycle)";
    }
    List<String> named = new ArrayList<>();
    ids.stream().limit(MAX_IDS_NAMED).forEach(id -> named.add(Long.toString(id)));
    return "snapshots "
        + String.join(", ", named)
        + (ids.size() > MAX_IDS_NAMED ? ", …" : "")
        + " ("
        + ids.size()
        + " in all) each name the next as parent, and the last the first (a cycle)";
  }

  /** The slot holding {@code id}, or the empty one where it would go. */
  private int slot(long id) {
    int mask = slotIds.length - 1;
    long hash = id * 0x9E3779B97F4A7C15L; // spreads consecutive ids, as Iceberg's often are
    int slot = (int) (hash ^ (hash >>> 32)) & mask;
    while (slotPositions[slot] != NONE && slotIds[slot] != id) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }
}
