package io.icerepl.app.engine.failover;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.manifest.ManifestEntry;
import io.icerepl.merge.manifest.ManifestListEntry;
import io.icerepl.merge.manifest.ManifestListRewriter;
import io.icerepl.merge.manifest.ManifestRewriter;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathSpelling;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * How the original table spells its own location and its files' paths. Fail-back keeps the
 * original's manifests in place, and a delete the promoted table wrote against one of the
 * original's data files must name it exactly as those manifests do: Iceberg matches a position
 * delete's {@code file_path} by string, so {@code file:///p/x} does not delete from {@code
 * file:/p/x} (as Hadoop writes it), nor {@code s3://b/x} from {@code s3a://b/x}.
 */
final class OriginalSpelling {
  private OriginalSpelling() {}

  /**
   * The original's location as its metadata spells it, when that is the place {@code given} names.
   */
  static String location(TableMetadata original, String given) {
    return PathSpelling.as(given, original.location());
  }

  /**
   * The prefix the original's files are named under, spelled as the first manifest of its current
   * snapshot that names a live file spells them (Hadoop and S3A may spell the files otherwise than
   * the location); {@code location} when that manifest names no file under it.
   */
  static String filesPrefix(ObjectStore store, TableMetadata original, String location)
      throws IOException {
    Optional<String> list =
        original.currentSnapshotId().flatMap(original::snapshot).flatMap(Snapshot::manifestList);
    if (list.isEmpty()) {
      return location;
    }
    List<ManifestListEntry> manifests;
    try (InputStream in = store.open(list.get())) {
      manifests = ManifestListRewriter.read(in, list.get());
    }
    for (ManifestListEntry manifest : manifests) {
      List<ManifestEntry> files;
      try (InputStream in = store.open(manifest.manifestPath())) {
        files = ManifestRewriter.readLiveFiles(in, manifest.manifestPath());
      }
      for (ManifestEntry file : files) {
        Optional<String> prefix = PathSpelling.prefixIn(location, file.filePath());
        if (prefix.isPresent()) {
          return prefix.get();
        }
      }
      if (!files.isEmpty()) {
        // one writer's manifest tells its spelling; the rest are not read for files elsewhere
        return location;
      }
    }
    return location;
  }
}
