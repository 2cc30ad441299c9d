package io.icerepl.app.engine.replication;

import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.merge.VersionSequence;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.MirrorMapping;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.PathSpelling;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.path.SourcePrefixes;
import io.icerepl.merge.path.UnmappedPath;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source prefixes a replica maps, as its state records them: the prefixes learned from the
 * source's metadata versions, and the mirror recorded when no version declared a prefix holding a
 * file. Each is recorded before any file is put under it, so every later run maps alike.
 */
public final class PrefixLedger {
  private static final Logger LOG = LoggerFactory.getLogger(PrefixLedger.class);

  private final ObjectStore source;
  private final List<PathMapping.Prefix> extraPrefixes;
  private final List<String> allowedSourcePrefixes;
  private final boolean coalesce;
  private final long maxMetadataBytes;

  /**
   * @param source where the source's earlier metadata versions are read
   * @param extraPrefixes prefixes mapped besides those the table's metadata declares
   * @param allowedSourcePrefixes the prefixes the table may name files under; empty: any
   * @param coalesce whether a run applies only the source's newest version: the versions it skips
   *     are learned from too
   */
  public PrefixLedger(
      ObjectStore source,
      List<PathMapping.Prefix> extraPrefixes,
      List<String> allowedSourcePrefixes,
      boolean coalesce,
      long maxMetadataBytes) {
    this.source = Objects.requireNonNull(source, "source");
    this.extraPrefixes = List.copyOf(extraPrefixes);
    this.allowedSourcePrefixes = List.copyOf(allowedSourcePrefixes);
    this.coalesce = coalesce;
    this.maxMetadataBytes = maxMetadataBytes;
  }

  /**
   * Every prefix the table wrote under, as the replica's state remembers them (its mirror included)
   * and as the source versions before {@code versions} declare them.
   *
   * @param head the source head the run replicates up to, read from {@code headFile}
   * @param replica the replica's head, before the run
   * @param versions the source versions the run applies
   */
  public Learning learn(
      String targetLocation,
      ReplicaState state,
      TableMetadata head,
      String headFile,
      Optional<ReplicaHead> replica,
      List<String> versions) {
    // an existing replica (an original failed back into) keeps its own spelling of its location
    String spelled =
        replica
            .map(r -> PathSpelling.as(targetLocation, r.metadata().location()))
            .orElse(targetLocation);
    SourcePrefixes prefixes =
        SourcePrefixes.of(spelled, extraPrefixes, allowedSourcePrefixes, state.sourcePrefixes())
            .withMirror(state.mirrorPrefixes());
    boolean formerLayout = replica.isPresent() && state.sourcePrefixes().isEmpty();
    return new Learning(
        spelled, learnEarlierVersions(prefixes, head, headFile, replica, versions), formerLayout);
  }

  /**
   * Learns the prefixes of source versions this run does not apply: on a backfill every earlier
   * version the metadata-log names (its files may still name files under prefixes the head no
   * longer declares), when coalescing the versions skipped. A version already gone still tells the
   * folder it was written in.
   */
  private SourcePrefixes learnEarlierVersions(
      SourcePrefixes prefixes,
      TableMetadata head,
      String headFile,
      Optional<ReplicaHead> replica,
      List<String> versions) {
    List<String> earlier;
    if (replica.isEmpty()) {
      prefixes = prefixes.learn(head, headFile);
      earlier = head.metadataLog().stream().map(TableMetadata.LogEntry::metadataFile).toList();
    } else if (coalesce && !versions.isEmpty()) {
      earlier =
          VersionSequence.toApply(
                  head,
                  headFile,
                  replica.flatMap(ReplicaHead::lastSourceFile),
                  replica.flatMap(ReplicaHead::lastSourceUpdatedMs),
                  false)
              .stream()
              .filter(f -> !versions.contains(f))
              .toList();
    } else {
      return prefixes;
    }
    for (String file : earlier) {
      try {
        prefixes =
            prefixes.learnEarlier(ReplicaFiles.readMetadata(source, file, maxMetadataBytes), file);
      } catch (MissingFileException e) {
        prefixes = prefixes.learnFolderOf(file);
      }
    }
    return prefixes;
  }

  /** What one run learned so far, as it applies the source's versions one after another. */
  public static final class Learning {
    private final String spelled;
    private SourcePrefixes prefixes;
    private boolean formerLayout;

    private Learning(String spelled, SourcePrefixes prefixes, boolean formerLayout) {
      this.spelled = spelled;
      this.prefixes = prefixes;
      this.formerLayout = formerLayout;
    }

    /** The replica's location as its files spell it. */
    public String spelled() {
      return spelled;
    }

    /** Learns what {@code version}, read from {@code file}, declares, and places its files. */
    public ReplicaDomain.Placement placementOf(TableMetadata version, String file) {
      if (formerLayout) {
        prefixes = prefixes.learnFormerLayout(version);
        formerLayout = false;
      }
      prefixes = prefixes.learn(version, file).learnFolderOf(file);
      return prefixes.placement();
    }

    /**
     * Recorded before any file is put under a newly learned prefix, so every later run maps it
     * alike; the explicit prefixes too, whose targets then hold the replica's files (see {@link
     * ReplicaState#mappedPrefixes}).
     *
     * @param state the state as this run read and wrote it
     * @return the state as written
     */
    public ReplicaState record(LeasedReplica leased, ReplicaState state) throws IOException {
      if (state.sourcePrefixes().equals(prefixes.learned())
          && state.mappedPrefixes().containsAll(prefixes.explicit())) {
        return state;
      }
      ReplicaState learned =
          state.withSourcePrefixes(prefixes.learned()).withMappedPrefixes(prefixes.explicit());
      leased.writeState(learned, "record the source prefixes");
      return learned;
    }
  }

  /**
   * Records the mirror mapping (see {@link MirrorMapping}) in the replica's state when it covers
   * the path nothing else did, before any file is put under it, so every later run maps alike.
   *
   * @return the mirror recorded, or empty when there is none to infer, one is already recorded, or
   *     it does not cover the path either
   */
  public Optional<List<PathMapping.Prefix>> recordMirror(
      String table,
      String sourceLocation,
      String targetLocation,
      PathOutsideMappingException outside,
      LeasedReplica leased)
      throws IOException {
    ReplicaState state = leased.state();
    Optional<MirrorMapping.Inferred> inferred =
        mirrorCovering(sourceLocation, targetLocation, state, outside);
    if (inferred.isEmpty()) {
      return Optional.empty();
    }
    List<PathMapping.Prefix> mirror = inferred.get().prefixes();
    leased.writeState(state.withMirrorPrefixes(mirror), "record the inferred mirror mapping");
    LOG.warn(
        "{}: no version of the table's metadata declares a prefix holding {}; source and replica"
            + " both end in {}, so files no metadata declares are mirrored: {}",
        table,
        outside.path().get(),
        inferred.get().commonPath(),
        UnmappedPath.describe(mirror));
    return Optional.of(mirror);
  }

  /**
   * The mirror mapping that would cover the path nothing else did, as {@link
   * UnmappedPath#mirrorCovering} finds it for this replica's state.
   */
  public Optional<MirrorMapping.Inferred> mirrorCovering(
      String sourceLocation,
      String targetLocation,
      ReplicaState state,
      PathOutsideMappingException outside) {
    return UnmappedPath.mirrorCovering(
        sourceLocation,
        targetLocation,
        allowedSourcePrefixes,
        state.mirrorPrefixes(),
        outside.path());
  }

  /** The error a run ends with, told what would declare a prefix holding its path. */
  public PathOutsideMappingException withHint(
      String sourceLocation, String targetLocation, PathOutsideMappingException outside) {
    return UnmappedPath.withHint(outside, sourceLocation, targetLocation, allowedSourcePrefixes);
  }
}
