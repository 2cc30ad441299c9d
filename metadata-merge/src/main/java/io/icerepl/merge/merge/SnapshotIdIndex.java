package io.icerepl.merge.merge;

import io.icerepl.merge.model.Snapshot;
import java.util.Arrays;
import java.util.List;

/**
 * Snapshot ids mapped to a position in a list, held in two primitive arrays (open addressing with
 * linear probing, at most three quarters full). A history holds up to millions of snapshots; a map
 * of boxed ids costs about 80 bytes an entry, this one 16 to 32.
 */
final class SnapshotIdIndex {
  private static final int ABSENT = -1;

  private long[] ids;
  private int[] positions;
  private int size;

  SnapshotIdIndex(int expected) {
    int capacity = 16;
    while (capacity / 4 * 3 < expected) {
      capacity *= 2;
    }
    allocate(capacity);
  }

  /** Each snapshot's id to its position in {@code snapshots}; a repeated id keeps the first. */
  static SnapshotIdIndex of(List<Snapshot> snapshots) {
    SnapshotIdIndex index = new SnapshotIdIndex(snapshots.size());
    for (int i = 0; i < snapshots.size(); i++) {
      index.putIfAbsent(snapshots.get(i).snapshotId(), i);
    }
    return index;
  }

  /** The position of {@code id}, or -1 when absent. */
  int position(long id) {
    int slot = slot(id);
    return positions[slot];
  }

  boolean contains(long id) {
    return position(id) != ABSENT;
  }

  /**
   * Adds {@code id} at {@code position} unless it is there.
   *
   * @return the position it already had, or -1 when it was added
   */
  int putIfAbsent(long id, int position) {
    int slot = slot(id);
    if (positions[slot] != ABSENT) {
      return positions[slot];
    }
    ids[slot] = id;
    positions[slot] = position;
    if (++size > ids.length / 4 * 3) {
      grow();
    }
    return ABSENT;
  }

  int size() {
    return size;
  }

  /** The slot holding {@code id}, or the empty one where it would go. */
  private int slot(long id) {
    int mask = ids.length - 1;
    long hash = id * 0x9E3779B97F4A7C15L; // spreads consecutive ids, as Iceberg's often are
    int slot = (int) (hash ^ (hash >>> 32)) & mask;
    while (positions[slot] != ABSENT && ids[slot] != id) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private void grow() {
    long[] oldIds = ids;
    int[] oldPositions = positions;
    allocate(oldIds.length * 2);
    for (int i = 0; i < oldIds.length; i++) {
      if (oldPositions[i] != ABSENT) {
        int slot = slot(oldIds[i]);
        ids[slot] = oldIds[i];
        positions[slot] = oldPositions[i];
      }
    }
  }

  private void allocate(int capacity) {
    ids = new long[capacity];
    positions = new int[capacity];
    Arrays.fill(positions, ABSENT);
  }
}
