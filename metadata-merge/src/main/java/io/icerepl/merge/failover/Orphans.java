package io.icerepl.merge.failover;

import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The commits only the old source holds: made after its last replicated version (during or just
 * before the outage), so neither in the promoted table nor expired there by the promoted table's
 * own retention. A fail-back keeps them, each source ref pointing at one becoming a tag, so the
 * orphan line stays readable by any engine ({@code VERSION AS OF '<tag>'}) and referenced (no
 * orphan-file cleanup deletes its files).
 *
 * @param snapshotIds the orphan snapshots, in the old source's order
 * @param tags the tags that keep them, in the old source's ref order
 */
public record Orphans(List<Long> snapshotIds, List<OrphanTag> tags) {
  private static final DateTimeFormatter TAG_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final String MAIN = "main";

  public Orphans {
    snapshotIds = List.copyOf(snapshotIds);
    tags = List.copyOf(tags);
  }

  /**
   * A tag that keeps an orphan line readable.
   *
   * @param tag the tag's name
   * @param sourceRef the old source's ref it was made from
   * @param snapshotId the orphan snapshot both point at
   */
  public record OrphanTag(String tag, String sourceRef, long snapshotId) {}

  /**
   * @param promoted the promoted table's metadata
   * @param original the old source's newest metadata
   * @param expiredByPromoted the snapshots the promoted table's retention expired (when it was a
   *     replica): not orphans, the old source only kept them longer
   * @param tagPrefix the tags' name prefix
   * @param failbackTimeMs the fail-back's time, which names the tags (passed in: no clock here)
   */
  public static Orphans find(
      TableMetadata promoted,
      TableMetadata original,
      Set<Long> expiredByPromoted,
      String tagPrefix,
      long failbackTimeMs) {
    Set<Long> promotedIds = new HashSet<>();
    promoted.snapshots().forEach(s -> promotedIds.add(s.snapshotId()));
    List<Long> orphanIds = new ArrayList<>();
    for (Snapshot snapshot : original.snapshots()) {
      long id = snapshot.snapshotId();
      if (!promotedIds.contains(id) && !expiredByPromoted.contains(id)) {
        orphanIds.add(id);
      }
    }
    Set<Long> orphanSet = new HashSet<>(orphanIds);
    String stamp = tagPrefix + "-" + TAG_TIME.format(Instant.ofEpochMilli(failbackTimeMs));
    List<OrphanTag> tags = new ArrayList<>();
    for (Map.Entry<String, Long> ref : original.refs().entrySet()) {
      if (!orphanSet.contains(ref.getValue())) {
        continue;
      }
      String base = MAIN.equals(ref.getKey()) ? stamp : stamp + "-" + ref.getKey();
      // two fail-backs within one second (back and forth) would name their tags alike: a name in
      // use takes the next free number, and the names chosen are recorded before anything is
      // copied, so a rerun keeps them
      String name = base;
      for (int n = 2; taken(name, promoted, original, tags); n++) {
        name = base + "-" + n;
      }
      tags.add(new OrphanTag(name, ref.getKey(), ref.getValue()));
    }
    return new Orphans(orphanIds, tags);
  }

  private static boolean taken(
      String name, TableMetadata promoted, TableMetadata original, List<OrphanTag> chosen) {
    return promoted.refs().containsKey(name)
        || original.refs().containsKey(name)
        || chosen.stream().anyMatch(t -> t.tag().equals(name));
  }

  /** The tags as refs: name → snapshot id. */
  public Map<String, Long> refs() {
    Map<String, Long> refs = new LinkedHashMap<>();
    tags.forEach(t -> refs.put(t.tag(), t.snapshotId()));
    return refs;
  }
}
