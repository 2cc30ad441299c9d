package io.icerepl.merge.copyplan;

import java.util.List;
import java.util.Map;

/**
 * The files one replica commit puts in place, by publish phase: data, delete and statistics files;
 * then manifests; then manifest lists. Only what the replica does not hold yet is listed.
 *
 * @param files byte-for-byte copies and rewritten delete files
 * @param manifests manifests to rewrite
 * @param manifestLists manifest lists to rewrite
 * @param rewrittenAtTarget delete files rewritten by an earlier commit that new manifests name,
 *     keyed by source path: their replica lengths are read from the replica
 * @param replicaManifestLengths lengths of manifests the replica already holds, by replica path
 */
public record CopyPlan(
    List<FileCopy> files,
    List<FileCopy> manifests,
    List<FileCopy> manifestLists,
    Map<String, FileCopy> rewrittenAtTarget,
    Map<String, Long> replicaManifestLengths) {

  public CopyPlan {
    files = List.copyOf(files);
    manifests = List.copyOf(manifests);
    manifestLists = List.copyOf(manifestLists);
    rewrittenAtTarget = Map.copyOf(rewrittenAtTarget);
    replicaManifestLengths = Map.copyOf(replicaManifestLengths);
  }

  public int size() {
    return files.size() + manifests.size() + manifestLists.size();
  }

  /** Everything in publish order. */
  public List<FileCopy> inPublishOrder() {
    List<FileCopy> all = new java.util.ArrayList<>(files);
    all.addAll(manifests);
    all.addAll(manifestLists);
    return all;
  }
}
