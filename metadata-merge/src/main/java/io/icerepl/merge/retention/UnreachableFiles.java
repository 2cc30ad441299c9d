package io.icerepl.merge.retention;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Files that only expired snapshots reached: safe to delete once the new metadata is published.
 * Each path appears once, in one list.
 */
public record UnreachableFiles(
    List<String> dataFiles,
    List<String> positionDeleteFiles,
    List<String> equalityDeleteFiles,
    List<String> manifests,
    List<String> manifestLists,
    List<String> statisticsFiles) {

  public UnreachableFiles {
    dataFiles = List.copyOf(dataFiles);
    positionDeleteFiles = List.copyOf(positionDeleteFiles);
    equalityDeleteFiles = List.copyOf(equalityDeleteFiles);
    manifests = List.copyOf(manifests);
    manifestLists = List.copyOf(manifestLists);
    statisticsFiles = List.copyOf(statisticsFiles);
  }

  public static UnreachableFiles none() {
    return new UnreachableFiles(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
  }

  /** The same files and {@code more} statistics files, each path once. */
  public UnreachableFiles withStatisticsFiles(List<String> more) {
    LinkedHashSet<String> statistics = new LinkedHashSet<>(statisticsFiles);
    statistics.addAll(more);
    return new UnreachableFiles(
        dataFiles,
        positionDeleteFiles,
        equalityDeleteFiles,
        manifests,
        manifestLists,
        List.copyOf(statistics));
  }

  /** Everything, in a safe deletion order: contents first, then what names them. */
  public List<String> all() {
    List<String> all = new ArrayList<>();
    inDeletionOrder().forEach(all::addAll);
    return all;
  }

  /**
   * The files in three stages to delete one after the other: contents (data, delete and statistics
   * files), then manifests, then manifest lists. Within a stage the order does not matter; across
   * stages it does: a deletion interrupted halfway is finished by reading the expired manifests
   * again, so a manifest goes only once every file it names is gone.
   */
  public List<List<String>> inDeletionOrder() {
    List<String> contents = new ArrayList<>(dataFiles);
    contents.addAll(positionDeleteFiles);
    contents.addAll(equalityDeleteFiles);
    contents.addAll(statisticsFiles);
    return List.of(contents, manifests, manifestLists);
  }
}
