package io.icerepl.app.engine;

import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.replication.VersionStep;
import io.icerepl.copier.copy.PlanCounter;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.merge.VersionSequence;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.MirrorMapping;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a run would do, planned and counted, writing nothing and taking no lease: each source
 * version merged by the {@link VersionStep} the run shares, onto the replica as the versions before
 * it would have left it, and its copies planned into one {@link PlanCounter}.
 */
final class DryRun {
  private final ReplicatorParts parts;

  DryRun(ReplicatorParts parts) {
    this.parts = parts;
  }

  /** See {@link TableReplicator#dryRun}. */
  ReplicationSummary plan(
      String sourceLocation, String targetLocation, Optional<String> sourceMetadata)
      throws IOException {
    String table = sourceLocation;
    ReplicaState state = parts.replicaFiles().state(targetLocation);
    if (state.promotion() != null) {
      throw PromotedReplicaException.of(table, targetLocation, state.promotion(), null);
    }
    String headFile =
        sourceMetadata
            .map(f -> VersionRun.resolveGiven(sourceLocation, f))
            .orElseGet(() -> parts.headResolver().head(sourceLocation).file());
    TableMetadata head =
        ReplicaFiles.readMetadata(parts.source(), headFile, parts.options().maxMetadataBytes());
    Optional<ReplicaHead> replica = parts.replicaFiles().head(table, targetLocation);
    if (replica.isPresent()) {
      MetadataMerge.checkSameTable(head, replica.get().metadata(), headFile, replica.get().file());
    }
    List<String> versions =
        VersionSequence.toApply(
            head,
            headFile,
            replica.flatMap(ReplicaHead::lastSourceFile),
            replica.flatMap(ReplicaHead::lastSourceUpdatedMs),
            parts.options().coalesce());
    try {
      return count(table, targetLocation, state, head, headFile, replica, versions);
    } catch (PathOutsideMappingException e) {
      // as the run would: once more with the mirror it would record
      Optional<MirrorMapping.Inferred> mirror =
          parts.ledger().mirrorCovering(sourceLocation, targetLocation, state, e);
      if (mirror.isEmpty()) {
        throw parts.ledger().withHint(sourceLocation, targetLocation, e);
      }
      return count(
              table,
              targetLocation,
              state.withMirrorPrefixes(mirror.get().prefixes()),
              head,
              headFile,
              replica,
              versions)
          .withInferredMirror(mirror.get().prefixes());
    }
  }

  private ReplicationSummary count(
      String table,
      String targetLocation,
      ReplicaState state,
      TableMetadata head,
      String headFile,
      Optional<ReplicaHead> replica,
      List<String> versions) {
    var prefixes = parts.ledger().learn(targetLocation, state, head, headFile, replica, versions);
    PlanCounter counter = new PlanCounter();
    int snapshots = 0;
    List<String> wouldPublish = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (int i = 0; i < versions.size(); i++) {
      String file = versions.get(i);
      Optional<VersionStep.Merged> merged =
          parts
              .step()
              .merge(
                  new VersionStep.Version(file, i == versions.size() - 1, headFile, head),
                  state,
                  replica,
                  prefixes);
      if (merged.isEmpty()) {
        skipped.add(file);
        continue;
      }
      parts
          .planner()
          .plan(
              table,
              merged.get().merge(),
              replica.map(ReplicaHead::metadata),
              merged.get().mapping(),
              counter);
      long version = replica.map(ReplicaHead::version).orElse(0L) + 1;
      replica =
          Optional.of(
              new ReplicaHead(
                  version,
                  ReplicaLayout.metadataFile(targetLocation, version),
                  merged.get().merge().metadata()));
      wouldPublish.add(replica.get().file());
      snapshots += merged.get().merge().addedSnapshots().size();
    }
    return ReplicationSummary.builder()
        .versionsApplied(wouldPublish.size())
        .snapshotsAdded(snapshots)
        .filesCopied(counter.filesCopied())
        .bytesCopied(counter.bytesCopied())
        .filesRewritten(counter.filesRewritten())
        .replicaMetadataFiles(wouldPublish)
        .skippedVersions(skipped)
        .build();
  }
}
