package io.icerepl.app.engine;

import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one replication did.
 *
 * @param versionsApplied source metadata versions committed to the replica
 * @param snapshotsAdded snapshots the replica did not hold before
 * @param filesCopied files copied byte for byte
 * @param bytesCopied their bytes
 * @param filesRewritten files rewritten with replica paths (manifests, lists, delete files)
 * @param replicaMetadataFiles replica metadata files written, in order
 * @param skippedVersions source versions that could not be completed (their files were gone) and
 *     were folded into a later one
 * @param lostSnapshots snapshots of skipped versions that no later version holds
 * @param settlesIn when a newer source metadata file, passed over as too young to trust, is old
 *     enough to replicate; empty when there is none
 * @param inferredMirror the mirror mapping this run inferred and recorded for files no metadata
 *     version declares a prefix for (see {@link io.icerepl.merge.path.MirrorMapping}); empty when
 *     it inferred none
 */
public record ReplicationSummary(
    int versionsApplied,
    int snapshotsAdded,
    long filesCopied,
    long bytesCopied,
    long filesRewritten,
    List<String> replicaMetadataFiles,
    List<String> skippedVersions,
    List<Long> lostSnapshots,
    Optional<Duration> settlesIn,
    List<PathMapping.Prefix> inferredMirror) {

  public ReplicationSummary {
    replicaMetadataFiles = List.copyOf(replicaMetadataFiles);
    skippedVersions = List.copyOf(skippedVersions);
    lostSnapshots = List.copyOf(lostSnapshots);
    inferredMirror = List.copyOf(inferredMirror);
  }

  /** A run that found nothing to do. */
  public static ReplicationSummary none() {
    return builder().build();
  }

  /** A builder for a summary, every count zero and every list empty until set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this summary's components. */
  public Builder toBuilder() {
    return new Builder()
        .versionsApplied(versionsApplied)
        .snapshotsAdded(snapshotsAdded)
        .filesCopied(filesCopied)
        .bytesCopied(bytesCopied)
        .filesRewritten(filesRewritten)
        .replicaMetadataFiles(replicaMetadataFiles)
        .skippedVersions(skippedVersions)
        .lostSnapshots(lostSnapshots)
        .settlesIn(settlesIn)
        .inferredMirror(inferredMirror);
  }

  /** The same, with the mirror mapping the run inferred. */
  public ReplicationSummary withInferredMirror(List<PathMapping.Prefix> mirror) {
    return toBuilder().inferredMirror(mirror).build();
  }

  /**
   * Builds a {@link ReplicationSummary} by component name, so its five counts cannot be swapped by
   * position. Lists are copied by {@link #build()}.
   */
  public static final class Builder {
    private int versionsApplied;
    private int snapshotsAdded;
    private long filesCopied;
    private long bytesCopied;
    private long filesRewritten;
    private List<String> replicaMetadataFiles = List.of();
    private List<String> skippedVersions = List.of();
    private List<Long> lostSnapshots = List.of();
    private Optional<Duration> settlesIn = Optional.empty();
    private List<PathMapping.Prefix> inferredMirror = List.of();

    private Builder() {}

    public Builder versionsApplied(int versions) {
      this.versionsApplied = versions;
      return this;
    }

    public Builder snapshotsAdded(int snapshots) {
      this.snapshotsAdded = snapshots;
      return this;
    }

    public Builder filesCopied(long files) {
      this.filesCopied = files;
      return this;
    }

    public Builder bytesCopied(long bytes) {
      this.bytesCopied = bytes;
      return this;
    }

    public Builder filesRewritten(long files) {
      this.filesRewritten = files;
      return this;
    }

    public Builder replicaMetadataFiles(List<String> files) {
      this.replicaMetadataFiles = files;
      return this;
    }

    public Builder skippedVersions(List<String> versions) {
      this.skippedVersions = versions;
      return this;
    }

    public Builder lostSnapshots(List<Long> snapshots) {
      this.lostSnapshots = snapshots;
      return this;
    }

    public Builder settlesIn(Optional<Duration> settles) {
      this.settlesIn = settles;
      return this;
    }

    public Builder inferredMirror(List<PathMapping.Prefix> mirror) {
      this.inferredMirror = mirror;
      return this;
    }

    public ReplicationSummary build() {
      return new ReplicationSummary(
          versionsApplied,
          snapshotsAdded,
          filesCopied,
          bytesCopied,
          filesRewritten,
          replicaMetadataFiles,
          skippedVersions,
          lostSnapshots,
          settlesIn,
          inferredMirror);
    }
  }
}
