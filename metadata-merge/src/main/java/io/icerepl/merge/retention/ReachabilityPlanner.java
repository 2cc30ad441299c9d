package io.icerepl.merge.retention;

import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which files the replica may delete after its own retention expired snapshots: those the expired
 * snapshots reached and no retained snapshot reaches.
 *
 * <p>Reachability goes top down: manifest lists, then manifests, then the live entries of
 * manifests. Sets of manifest lists and manifests are held in memory (their number is small);
 * content files are streamed and checked in bounded batches. Nothing is decided from a partial
 * read: any manifest list or manifest that cannot be read fails the whole plan.
 */
public final class ReachabilityPlanner {
  private ReachabilityPlanner() {}

  /**
   * Files reachable from the expired snapshots and from no retained snapshot.
   *
   * @param expired what the expired snapshots named directly (manifest list or v1 manifests,
   *     statistics files)
   * @param retained the replica metadata AFTER expiry: every snapshot in it is retained (any
   *     branch, tag, or unreferenced)
   * @param source opens manifest lists and manifests
   * @param batchSize how many candidate files are checked per pass over the retained manifests
   *     (memory bound)
   * @throws io.icerepl.merge.error.BadInputException when a manifest list or manifest is not
   *     readable; then nothing may be deleted, so no partial result is ever returned
   * @throws java.io.UncheckedIOException when {@code source} fails to open or read a file
   */
  public static UnreachableFiles unreachable(
      List<ExpiredSnapshot> expired, TableMetadata retained, ManifestSource source, int batchSize) {
    return unreachable(expired, retained, source, batchSize, false);
  }

  /**
   * As {@link #unreachable(List, TableMetadata, ManifestSource, int)}, finishing a deletion that an
   * earlier run began: the expired snapshots' manifest lists and manifests it already removed are
   * skipped (it removed their contents first). Retained files are read as strictly as ever.
   */
  public static UnreachableFiles unreachableAfterInterruptedDelete(
      List<ExpiredSnapshot> expired, TableMetadata retained, ManifestSource source, int batchSize) {
    return unreachable(expired, retained, source, batchSize, true);
  }

  private static UnreachableFiles unreachable(
      List<ExpiredSnapshot> expired,
      TableMetadata retained,
      ManifestSource source,
      int batchSize,
      boolean skipGone) {
    Objects.requireNonNull(expired, "expired");
    Objects.requireNonNull(retained, "retained");
    Objects.requireNonNull(source, "source");
    if (batchSize < 1) {
      throw new IllegalArgumentException(
          "Cannot plan unreachable files: batchSize must be at least 1, got " + batchSize);
    }
    if (expired.isEmpty()) {
      return UnreachableFiles.none();
    }
    ReplicaManifests manifests = new ReplicaManifests(source);

    Set<String> retainedLists = new LinkedHashSet<>();
    Set<String> retainedManifests = new LinkedHashSet<>();
    for (Snapshot snapshot : retained.snapshots()) {
      snapshot.manifestList().ifPresent(retainedLists::add);
      retainedManifests.addAll(snapshot.manifests());
    }
    for (String list : retainedLists) {
      retainedManifests.addAll(manifests.manifestsOf(list));
    }

    // A list or manifest an expired snapshot shares with a retained one stays, with all it names.
    Set<String> candidateLists = new LinkedHashSet<>();
    Set<String> candidateManifests = new LinkedHashSet<>();
    for (ExpiredSnapshot snapshot : expired) {
      String list = snapshot.manifestList();
      if (list != null
          && !retainedLists.contains(list)
          && !(skipGone && manifests.gone(list))
          && candidateLists.add(list)) {
        addCandidates(manifests.manifestsOf(list), retainedManifests, candidateManifests);
      }
      addCandidates(snapshot.manifests(), retainedManifests, candidateManifests);
    }
    if (skipGone) {
      candidateManifests.removeIf(manifests::gone);
    }

    Map<String, FileKind> content =
        ContentSweep.unreachable(manifests, candidateManifests, retainedManifests, batchSize);

    Set<String> retainedStatistics = StatisticsFiles.all(retained);
    Set<String> statistics = new LinkedHashSet<>();
    for (ExpiredSnapshot snapshot : expired) {
      for (String path : snapshot.statisticsFiles()) {
        if (!retainedStatistics.contains(path)) {
          statistics.add(path);
        }
      }
    }

    return new UnreachableFiles(
        ofKind(content, FileKind.DATA),
        ofKind(content, FileKind.POSITION_DELETE, FileKind.DELETION_VECTOR),
        ofKind(content, FileKind.EQUALITY_DELETE),
        List.copyOf(candidateManifests),
        List.copyOf(candidateLists),
        List.copyOf(statistics));
  }

  /**
   * The {@link ExpiredSnapshot} descriptor of each snapshot in {@code before} whose id is in {@code
   * ids}, in the order {@code before} lists its snapshots: its manifest list, v1 manifests, and the
   * {@code statistics-path} of its {@code statistics} and {@code partition-statistics} entries. Ids
   * {@code before} does not hold are skipped: such a snapshot names no file there.
   */
  public static List<ExpiredSnapshot> describe(TableMetadata before, Collection<Long> ids) {
    Objects.requireNonNull(before, "before");
    Set<Long> wanted = Set.copyOf(ids);
    Map<Long, List<String>> statistics = StatisticsFiles.bySnapshot(before);
    List<ExpiredSnapshot> described = new ArrayList<>();
    for (Snapshot snapshot : before.snapshots()) {
      long id = snapshot.snapshotId();
      if (wanted.contains(id)) {
        described.add(
            new ExpiredSnapshot(
                id,
                snapshot.manifestList().orElse(null),
                snapshot.manifests(),
                statistics.getOrDefault(id, List.of())));
      }
    }
    return described;
  }

  /**
   * The statistics files {@code before} names and {@code after} does not: those a replica commit
   * stops naming when the source replaced or removed a snapshot's statistics.
   */
  public static List<String> statisticsFilesNoLongerNamed(
      TableMetadata before, TableMetadata after) {
    Set<String> named = StatisticsFiles.all(after);
    return StatisticsFiles.all(before).stream().filter(p -> !named.contains(p)).toList();
  }

  /**
   * Of {@code files} (statistics files replication stopped naming), those {@code current} does not
   * name: no snapshot reaches them, so retention may delete them. One a later commit names again,
   * or a commit that was recorded but never published still names, stays.
   */
  public static List<String> unnamedStatisticsFiles(
      Collection<String> files, TableMetadata current) {
    Set<String> named = StatisticsFiles.all(current);
    return new LinkedHashSet<>(files).stream().filter(p -> !named.contains(p)).toList();
  }

  private static void addCandidates(
      List<String> named, Set<String> retainedManifests, Set<String> candidateManifests) {
    for (String manifest : named) {
      if (!retainedManifests.contains(manifest)) {
        candidateManifests.add(manifest);
      }
    }
  }

  private static List<String> ofKind(Map<String, FileKind> files, FileKind... kinds) {
    Set<FileKind> wanted = Set.of(kinds);
    List<String> paths = new ArrayList<>();
    files.forEach(
        (path, kind) -> {
          if (wanted.contains(kind)) {
            paths.add(path);
          }
        });
    return paths;
  }
}
