package io.icerepl.lab.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether one table's commits reached its replica exactly once and in source order, from what an
 * Iceberg reader finds on both sides: every replica metadata version, oldest first, with the source
 * metadata file it records and its snapshot ids; and the source table's snapshot ids, oldest first.
 *
 * <p>Exactly once: each replica version records a strictly later source metadata file than the one
 * before (a source version applied twice, or an older one applied after a newer, breaks it), and
 * the last replica version's snapshots are the source's, each once, in the source's order. In
 * order: each replica version's snapshots are a prefix of the last one's, so no reader ever saw a
 * snapshot the history later dropped or reordered.
 */
final class FleetOrderCheck {
  /** The leading version of a {@code <N>-<uuid>.metadata.json} or {@code vN.metadata.json} name. */
  private static final Pattern SOURCE_VERSION = Pattern.compile("v?(\\d+)[-.].*");

  /** One replica metadata version as a reader parses it. */
  record ReplicaVersion(int version, String sourceMetadataFile, List<Long> snapshotIds) {}

  private FleetOrderCheck() {}

  /**
   * The problems found with one table's replica; empty when it holds each commit once, in order.
   */
  static List<String> problems(
      String table, List<ReplicaVersion> replicaVersions, List<Long> sourceSnapshotIds) {
    List<String> problems = new ArrayList<>();
    if (replicaVersions.isEmpty()) {
      problems.add(table + ": no replica metadata");
      return problems;
    }
    long previousSource = -1;
    List<Long> last = replicaVersions.get(replicaVersions.size() - 1).snapshotIds();
    for (ReplicaVersion v : replicaVersions) {
      long source = sourceVersion(v.sourceMetadataFile());
      if (source < 0) {
        problems.add(
            table + ": replica v" + v.version() + " records no source metadata file version");
      } else if (source <= previousSource) {
        problems.add(
            table
                + ": replica v"
                + v.version()
                + " applies source version "
                + source
                + " after "
                + previousSource);
      }
      previousSource = Math.max(previousSource, source);
      if (!isPrefix(v.snapshotIds(), last)) {
        problems.add(
            table
                + ": replica v"
                + v.version()
                + " snapshots "
                + v.snapshotIds()
                + " are not a prefix of the last version's");
      }
    }
    if (!last.equals(sourceSnapshotIds)) {
      problems.add(
          table + ": replica snapshots " + last + " differ from the source's " + sourceSnapshotIds);
    }
    return problems;
  }

  static long sourceVersion(String metadataFile) {
    if (metadataFile == null) {
      return -1;
    }
    String name = metadataFile.substring(metadataFile.lastIndexOf('/') + 1);
    Matcher m = SOURCE_VERSION.matcher(name);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  private static boolean isPrefix(List<Long> prefix, List<Long> of) {
    return prefix.size() <= of.size() && of.subList(0, prefix.size()).equals(prefix);
  }
}
