package io.icerepl.merge.state;

import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.retention.ExpiredSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the replicator remembers about one replica beyond its metadata: what the replica's own
 * retention removed (so replication does not bring it back), and deletions not finished yet (so a
 * rerun after a crash can finish them).
 *
 * @param expiredSnapshotIds snapshots the replica's retention expired
 * @param droppedRefs refs it dropped, with the snapshot each pointed at
 * @param pendingDeletes expired snapshots whose unreachable files may not all be deleted yet
 * @param lastCommit the replica commit the replicator made last, or null before the first
 * @param sourcePrefixes every source prefix the table wrote under, with its replica folder (see
 *     {@link io.icerepl.merge.path.SourcePrefixes}); empty for replicas made before they were kept
 * @param replacedStatisticsFiles statistics files a replica commit stopped naming (the source
 *     replaced or removed them), for the replica's retention to delete
 * @param promotion the replica's promotion to a writable table, null while it is a replica
 * @param keptRefs tags the replica keeps although its source does not have them: a fail-back's
 *     orphan tags (name → snapshot id), which every later replication keeps with their snapshots
 * @param mirrorPrefixes the mirror mapping inferred for files no metadata version declares a prefix
 *     for (see {@link io.icerepl.merge.path.MirrorMapping}); empty until one was needed
 * @param cutTags the replication groups' tags on the replica (see {@link
 *     io.icerepl.merge.group.CutTags}): name → snapshot id, kept by every later replication
 * @param knownCurrentFromMs since when the replica is known current (the replicator's clock): a run
 *     or check that began then read the source's head, nothing settling, and ended with the replica
 *     holding it, so the replica holds every source commit made before; null until one did, and
 *     after a promotion (the replica's source is no longer what it replicates)
 * @param group the replication group the replica is a member of, as the service that replicates it
 *     configured it; null when none recorded one
 * @param mappedPrefixes the prefixes a user mapped explicitly ({@code --map}) for runs that placed
 *     the replica's files, whose targets (a data root beside the replica's location) hold files of
 *     the replica too; empty when no run was given one
 */
public record ReplicaState(
    Set<Long> expiredSnapshotIds,
    Map<String, Long> droppedRefs,
    List<ExpiredSnapshot> pendingDeletes,
    LastCommit lastCommit,
    List<PathMapping.Prefix> sourcePrefixes,
    List<String> replacedStatisticsFiles,
    Promotion promotion,
    Map<String, Long> keptRefs,
    List<PathMapping.Prefix> mirrorPrefixes,
    Map<String, Long> cutTags,
    Long knownCurrentFromMs,
    GroupMembership group,
    List<PathMapping.Prefix> mappedPrefixes) {

  public ReplicaState {
    mappedPrefixes = List.copyOf(mappedPrefixes);
    cutTags = Map.copyOf(cutTags);
    expiredSnapshotIds = Set.copyOf(expiredSnapshotIds);
    droppedRefs = Map.copyOf(droppedRefs);
    pendingDeletes = List.copyOf(pendingDeletes);
    sourcePrefixes = List.copyOf(sourcePrefixes);
    replacedStatisticsFiles = List.copyOf(replacedStatisticsFiles);
    keptRefs = Map.copyOf(keptRefs);
    mirrorPrefixes = List.copyOf(mirrorPrefixes);
  }

  public static ReplicaState empty() {
    return builder().build();
  }

  /** A builder for a state, every component empty or null until set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this state's components. */
  public Builder toBuilder() {
    return new Builder()
        .expiredSnapshotIds(expiredSnapshotIds)
        .droppedRefs(droppedRefs)
        .pendingDeletes(pendingDeletes)
        .lastCommit(lastCommit)
        .sourcePrefixes(sourcePrefixes)
        .replacedStatisticsFiles(replacedStatisticsFiles)
        .promotion(promotion)
        .keptRefs(keptRefs)
        .mirrorPrefixes(mirrorPrefixes)
        .cutTags(cutTags)
        .knownCurrentFromMs(knownCurrentFromMs)
        .group(group)
        .mappedPrefixes(mappedPrefixes);
  }

  /** The same state with another retention record, the last commit kept. */
  public ReplicaState withRetention(
      Set<Long> expired, Map<String, Long> dropped, List<ExpiredSnapshot> pending) {
    return toBuilder()
        .expiredSnapshotIds(expired)
        .droppedRefs(dropped)
        .pendingDeletes(pending)
        .build();
  }

  public ReplicaState withLastCommit(LastCommit commit) {
    return toBuilder().lastCommit(commit).build();
  }

  public ReplicaState withSourcePrefixes(List<PathMapping.Prefix> prefixes) {
    return toBuilder().sourcePrefixes(prefixes).build();
  }

  public ReplicaState withReplacedStatisticsFiles(List<String> files) {
    return toBuilder().replacedStatisticsFiles(files).build();
  }

  /** The same state recording the replica's promotion to a writable table. */
  public ReplicaState withPromotion(Promotion promoted) {
    return toBuilder()
        .promotion(promoted)
        // a primary's writers are its own: what it was known current with no longer holds
        .knownCurrentFromMs(promoted == null ? knownCurrentFromMs : null)
        .build();
  }

  /**
   * The same state with {@code explicit} among its {@link #mappedPrefixes}: those recorded before
   * stay, since files placed by them stay the replica's.
   */
  public ReplicaState withMappedPrefixes(List<PathMapping.Prefix> explicit) {
    if (mappedPrefixes.containsAll(explicit)) {
      return this;
    }
    List<PathMapping.Prefix> all = new ArrayList<>(mappedPrefixes);
    explicit.stream().filter(p -> !all.contains(p)).forEach(all::add);
    return toBuilder().mappedPrefixes(all).build();
  }

  /** The same state with the mirror mapping inferred for the replica. */
  public ReplicaState withMirrorPrefixes(List<PathMapping.Prefix> prefixes) {
    return toBuilder().mirrorPrefixes(prefixes).build();
  }

  /** The same state keeping these tags (a fail-back's orphan tags). */
  public ReplicaState withKeptRefs(Map<String, Long> refs) {
    return toBuilder().keptRefs(refs).build();
  }

  /** The same state with these group cut tags. */
  public ReplicaState withCutTags(Map<String, Long> tags) {
    return toBuilder().cutTags(tags).build();
  }

  /**
   * The same state known current from {@code fromMs}: never moved back, so a check that began
   * before the last recorded one changes nothing.
   */
  public ReplicaState withKnownCurrentFrom(long fromMs) {
    if (knownCurrentFromMs != null && knownCurrentFromMs >= fromMs) {
      return this;
    }
    return toBuilder().knownCurrentFromMs(fromMs).build();
  }

  /**
   * The same state no longer known current: its source is not the one it was known current with (a
   * promotion, a fail-back that turns the replica's direction).
   */
  public ReplicaState withoutKnownCurrent() {
    return toBuilder().knownCurrentFromMs(null).build();
  }

  /** The same state recording the replica's group, or none. */
  public ReplicaState withGroup(GroupMembership membership) {
    return toBuilder().group(membership).build();
  }

  /**
   * Builds a {@link ReplicaState} by component name, so two components of one type (three maps of
   * name to snapshot id) cannot be swapped by position. Collections are copied by {@link #build()}.
   */
  public static final class Builder {
    private Set<Long> expiredSnapshotIds = Set.of();
    private Map<String, Long> droppedRefs = Map.of();
    private List<ExpiredSnapshot> pendingDeletes = List.of();
    private LastCommit lastCommit;
    private List<PathMapping.Prefix> sourcePrefixes = List.of();
    private List<String> replacedStatisticsFiles = List.of();
    private Promotion promotion;
    private Map<String, Long> keptRefs = Map.of();
    private List<PathMapping.Prefix> mirrorPrefixes = List.of();
    private Map<String, Long> cutTags = Map.of();
    private Long knownCurrentFromMs;
    private GroupMembership group;
    private List<PathMapping.Prefix> mappedPrefixes = List.of();

    private Builder() {}

    public Builder expiredSnapshotIds(Set<Long> ids) {
      this.expiredSnapshotIds = ids;
      return this;
    }

    public Builder droppedRefs(Map<String, Long> refs) {
      this.droppedRefs = refs;
      return this;
    }

    public Builder pendingDeletes(List<ExpiredSnapshot> pending) {
      this.pendingDeletes = pending;
      return this;
    }

    public Builder lastCommit(LastCommit commit) {
      this.lastCommit = commit;
      return this;
    }

    public Builder sourcePrefixes(List<PathMapping.Prefix> prefixes) {
      this.sourcePrefixes = prefixes;
      return this;
    }

    public Builder replacedStatisticsFiles(List<String> files) {
      this.replacedStatisticsFiles = files;
      return this;
    }

    public Builder promotion(Promotion promoted) {
      this.promotion = promoted;
      return this;
    }

    public Builder keptRefs(Map<String, Long> refs) {
      this.keptRefs = refs;
      return this;
    }

    public Builder mirrorPrefixes(List<PathMapping.Prefix> prefixes) {
      this.mirrorPrefixes = prefixes;
      return this;
    }

    public Builder cutTags(Map<String, Long> tags) {
      this.cutTags = tags;
      return this;
    }

    public Builder knownCurrentFromMs(Long fromMs) {
      this.knownCurrentFromMs = fromMs;
      return this;
    }

    public Builder group(GroupMembership membership) {
      this.group = membership;
      return this;
    }

    public Builder mappedPrefixes(List<PathMapping.Prefix> prefixes) {
      this.mappedPrefixes = prefixes;
      return this;
    }

    public ReplicaState build() {
      return new ReplicaState(
          expiredSnapshotIds,
          droppedRefs,
          pendingDeletes,
          lastCommit,
          sourcePrefixes,
          replacedStatisticsFiles,
          promotion,
          keptRefs,
          mirrorPrefixes,
          cutTags,
          knownCurrentFromMs,
          group,
          mappedPrefixes);
    }
  }

  /**
   * A replica commit, recorded just before its metadata file is published. Its token is also a
   * property of that metadata file, so the replicator can tell its own latest version from one
   * written behind its back (which copies the table's properties, but not a token not yet there).
   *
   * @param version the replica version number
   * @param token this commit's token
   * @param previousToken the token of the version it replaced, null when that had none
   */
  public record LastCommit(long version, String token, String previousToken) {}
}
