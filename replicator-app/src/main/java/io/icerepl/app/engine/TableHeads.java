package io.icerepl.app.engine;

import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.model.TableMetadata;
import java.util.Optional;
import java.util.Set;

/**
 * Where a source table and its replica stand, as a run read them: the status and the lag are
 * computed from it without reading either side again.
 *
 * @param source the source head resolved
 * @param sourceMetadata its content
 * @param replica the replica's current version, empty when there is no replica yet
 * @param expiredSnapshotIds snapshots the replica's own retention expired (the source may still
 *     hold them)
 */
public record TableHeads(
    SourceHeadResolver.Head source,
    TableMetadata sourceMetadata,
    Optional<ReplicaHead> replica,
    Set<Long> expiredSnapshotIds) {

  public TableHeads {
    expiredSnapshotIds = Set.copyOf(expiredSnapshotIds);
  }

  /**
   * The name of the source metadata file the replica was built from, empty when there is no
   * replica.
   */
  public Optional<String> replicatedFileName() {
    return replica.flatMap(ReplicaHead::lastSourceFile).map(MetadataFileNames::fileName);
  }

  /**
   * Whether the replica was built from the source head, with no newer source file settling: a file
   * still settling is a version the replica may yet need.
   */
  public boolean inSync() {
    return replicatedFileName().equals(Optional.of(MetadataFileNames.fileName(source.file())))
        && source.settlesAtMs().isEmpty();
  }
}
