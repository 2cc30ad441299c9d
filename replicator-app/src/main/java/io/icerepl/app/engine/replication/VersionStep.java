package io.icerepl.app.engine.replication;

import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.merge.MergeRequest;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.merge.ReplicaCommits;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.ReplicaDomain;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The work on one source version that a run and a dry run share: the version read, its prefixes
 * learned, and its metadata merged onto the replica as the versions before it left it. What follows
 * is the caller's: a run copies the merge's files and commits it, a dry run counts them.
 */
public final class VersionStep {
  private final ObjectStore source;
  private final long maxMetadataBytes;
  private final Clock clock;

  /**
   * @param clock the clock of commit times
   */
  public VersionStep(ObjectStore source, long maxMetadataBytes, Clock clock) {
    this.source = Objects.requireNonNull(source, "source");
    this.maxMetadataBytes = maxMetadataBytes;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * One source version to apply.
   *
   * @param file its metadata file
   * @param last whether it is the last version of the run: a last version whose file is gone fails
   *     the run instead of being folded into the next
   * @param headFile the source head the run read, not read again when it is {@code file}
   * @param head its content
   */
  public record Version(String file, boolean last, String headFile, TableMetadata head) {}

  /** A source version merged, and where its files go. */
  public record Merged(MergeResult merge, ReplicaDomain.Placement placement) {
    public PathMapping mapping() {
      return placement.mapping();
    }
  }

  /**
   * @param state the replica's state as the versions before this one left it
   * @param replica the replica's head as the versions before this one left it
   * @param prefixes what the run learned of the source's prefixes so far, told this version's
   * @return empty when the version's file is gone and it is not the last: the next version holds
   *     its changes
   * @throws MissingFileException when the last version's file is gone
   */
  public Optional<Merged> merge(
      Version version,
      ReplicaState state,
      Optional<ReplicaHead> replica,
      PrefixLedger.Learning prefixes) {
    TableMetadata metadata;
    try {
      metadata =
          version.file().equals(version.headFile())
              ? version.head()
              : ReplicaFiles.readMetadata(source, version.file(), maxMetadataBytes);
    } catch (MissingFileException e) {
      if (version.last()) {
        throw e;
      }
      return Optional.empty();
    }
    ReplicaDomain.Placement placement = prefixes.placementOf(metadata, version.file());
    MergeRequest.Builder request =
        mergeRequest(metadata, version.file(), prefixes.spelled(), placement.mapping(), state);
    replica.ifPresent(r -> request.replica(r.metadata(), r.file()));
    return Optional.of(new Merged(MetadataMerge.merge(request.build()), placement));
  }

  private MergeRequest.Builder mergeRequest(
      TableMetadata metadata,
      String file,
      String spelled,
      PathMapping mapping,
      ReplicaState state) {
    Map<String, Long> dropped = new HashMap<>(sourceCutTags(metadata));
    dropped.putAll(state.droppedRefs());
    return MergeRequest.builder()
        .source(metadata, file)
        .targetLocation(spelled)
        .mapping(mapping)
        .commitTimeMs(clock.millis())
        .expiredSnapshotIds(state.expiredSnapshotIds())
        .droppedRefs(dropped)
        .keptRefs(state.keptRefs())
        .cutTags(state.cutTags())
        .previousVersionsMax(ReplicaCommits.previousVersionsMax(metadata));
  }

  /**
   * The replication groups' cut tags a source that was itself a replica carries, as its own state
   * records them: a switched-back original carries the group's tags of its fail-back and of the
   * promoted tables it was failed back from. They are that table's bookkeeping, not refs of its
   * writers: replicated, they would clash with the replica's own group tags of the same names. Only
   * a source of a promoted line ({@code replicator.epoch}) can have any, so no other source's state
   * is read.
   */
  private Map<String, Long> sourceCutTags(TableMetadata metadata) {
    if (!metadata.properties().containsKey(ReplicaProperties.EPOCH)) {
      return Map.of();
    }
    try {
      return new ReplicaFiles(source, maxMetadataBytes).state(metadata.location()).cutTags();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the replicator state of source " + metadata.location(), e);
    }
  }
}
