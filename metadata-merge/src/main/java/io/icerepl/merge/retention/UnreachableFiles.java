package io.icerepl.merge.retention;

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
    java.util.LinkedHashSet<String> statistics = new java.util.LinkedHashSet<>(statisticsFiles);
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
    List<String> all = new java.util.ArrayList<>(dataFiles);
    all.addAll(positionDeleteFiles);
    all.addAll(equalityDeleteFiles);
    all.addAll(statisticsFiles);
    all.addAll(manifests);
    all.addAll(manifestLists);
    return all;
  }
}
