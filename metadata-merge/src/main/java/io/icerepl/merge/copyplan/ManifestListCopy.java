package io.icerepl.merge.copyplan;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A manifest list the replica lacks. It is rewritten after every manifest it names is in place.
 *
 * @param manifestList the manifest list to rewrite
 * @param manifests the replica paths of every manifest it names
 * @param replicaManifestLengths lengths of the manifests it names that the replica already held
 *     before this commit, by replica path; the others are written by this commit
 */
public record ManifestListCopy(
    FileCopy manifestList, List<String> manifests, Map<String, Long> replicaManifestLengths)
    implements CopyStep {

  public ManifestListCopy {
    Objects.requireNonNull(manifestList, "manifestList");
    manifests = List.copyOf(manifests);
    replicaManifestLengths = Map.copyOf(replicaManifestLengths);
  }

  @Override
  public int size() {
    return 1;
  }
}
