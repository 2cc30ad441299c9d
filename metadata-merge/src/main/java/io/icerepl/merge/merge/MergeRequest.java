package io.icerepl.merge.merge;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Everything one merge needs; built with {@link #builder()}.
 *
 * @param source the source metadata version to apply
 * @param sourceMetadataFile where it was read from
 * @param replica the replica's current metadata, absent on backfill
 * @param replicaMetadataFile the replica's current metadata file, absent on backfill
 * @param targetLocation the replica table location
 * @param mapping source → replica path mapping
 * @param commitTimeMs the time of this replica commit (passed in: the library reads no clock)
 * @param expiredSnapshotIds snapshots the replica's own retention expired: not brought back unless
 *     the source makes them current or points a ref at them
 * @param droppedRefs refs the replica's retention dropped, with the snapshot each pointed at
 * @param previousVersionsMax how many previous replica metadata files the metadata-log keeps
 * @param keptRefs tags the replica keeps although the source does not have them (a fail-back's
 *     orphan tags: name → snapshot id); their snapshots stay, off the main history
 * @param cutTags tags the replication groups put on the replica (name → snapshot id, see {@link
 *     io.icerepl.merge.group.CutTags}): kept as tags; their snapshots are on the main history
 */
public record MergeRequest(
    TableMetadata source,
    String sourceMetadataFile,
    Optional<TableMetadata> replica,
    Optional<String> replicaMetadataFile,
    String targetLocation,
    PathMapping mapping,
    long commitTimeMs,
    Set<Long> expiredSnapshotIds,
    Map<String, Long> droppedRefs,
    int previousVersionsMax,
    Map<String, Long> keptRefs,
    Map<String, Long> cutTags) {

  public MergeRequest {
    cutTags = Map.copyOf(cutTags);
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(sourceMetadataFile, "sourceMetadataFile");
    Objects.requireNonNull(targetLocation, "targetLocation");
    Objects.requireNonNull(mapping, "mapping");
    expiredSnapshotIds = Set.copyOf(expiredSnapshotIds);
    droppedRefs = Map.copyOf(droppedRefs);
    keptRefs = Map.copyOf(keptRefs);
    if (replica.isPresent() != replicaMetadataFile.isPresent()) {
      throw new IllegalArgumentException("replica and replicaMetadataFile go together");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builder for {@link MergeRequest}. */
  public static final class Builder {
    private TableMetadata source;
    private String sourceMetadataFile;
    private TableMetadata replica;
    private String replicaMetadataFile;
    private String targetLocation;
    private PathMapping mapping;
    private long commitTimeMs;
    private Set<Long> expiredSnapshotIds = Set.of();
    private Map<String, Long> droppedRefs = Map.of();
    private int previousVersionsMax = 100;
    private Map<String, Long> keptRefs = Map.of();
    private Map<String, Long> cutTags = Map.of();

    public Builder source(TableMetadata metadata, String file) {
      this.source = metadata;
      this.sourceMetadataFile = file;
      return this;
    }

    public Builder replica(TableMetadata metadata, String file) {
      this.replica = metadata;
      this.replicaMetadataFile = file;
      return this;
    }

    public Builder targetLocation(String location) {
      this.targetLocation = location;
      return this;
    }

    public Builder mapping(PathMapping pathMapping) {
      this.mapping = pathMapping;
      return this;
    }

    public Builder commitTimeMs(long timeMs) {
      this.commitTimeMs = timeMs;
      return this;
    }

    public Builder expiredSnapshotIds(Set<Long> ids) {
      this.expiredSnapshotIds = ids;
      return this;
    }

    public Builder droppedRefs(Map<String, Long> refs) {
      this.droppedRefs = refs;
      return this;
    }

    public Builder previousVersionsMax(int max) {
      this.previousVersionsMax = max;
      return this;
    }

    public Builder keptRefs(Map<String, Long> refs) {
      this.keptRefs = refs;
      return this;
    }

    public Builder cutTags(Map<String, Long> tags) {
      this.cutTags = tags;
      return this;
    }

    public MergeRequest build() {
      return new MergeRequest(
          source,
          sourceMetadataFile,
          Optional.ofNullable(replica),
          Optional.ofNullable(replicaMetadataFile),
          targetLocation,
          mapping,
          commitTimeMs,
          expiredSnapshotIds,
          droppedRefs,
          previousVersionsMax,
          keptRefs,
          cutTags);
    }
  }
}
