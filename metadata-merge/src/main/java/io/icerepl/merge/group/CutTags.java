package io.icerepl.merge.group;

import static io.icerepl.merge.model.TableMetadataFields.REFS;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.merge.MetadataMerge;
import io.icerepl.merge.merge.ReplicaCommits;
import io.icerepl.merge.model.TableMetadata;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The tags a replication group puts on each of its replicas, so that readers of any engine name the
 * cut ({@code VERSION AS OF '<tag>'}):
 *
 * <ul>
 *   <li>a <b>cut tag</b> {@code <ref>-<yyyyMMdd'T'HHmmss'Z'>} per cut, at the table's snapshot as
 *       of that moment. Written to every table before any reader is told of it, never moved, kept
 *       for a configured time: the tables read at one cut tag show one moment of their sources.
 *   <li>the <b>moving tag</b> {@code <ref>}, at the newest cut written to the table. Moved table by
 *       table, so a reader that names it while it moves may read two cuts; it is for one table at a
 *       time, or for catalogs that move a group's entries together.
 * </ul>
 *
 * Cuts are tagged at whole seconds, the cut rounded down: every moment before a cut is a cut too,
 * and a second's tags are the same whichever instance or rerun writes them.
 */
public final class CutTags {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final Pattern STAMP_SHAPE = Pattern.compile("\\d{8}T\\d{6}Z");

  private CutTags() {}

  /** The moment a cut at {@code cutMs} is tagged for: rounded down to its second. */
  public static long momentOf(long cutMs) {
    return Math.floorDiv(cutMs, 1000L) * 1000L;
  }

  /** The cut tag of {@code ref} for a moment (a whole second). */
  public static String name(String ref, long momentMs) {
    return ref + "-" + STAMP.format(Instant.ofEpochMilli(momentMs));
  }

  /** The moment {@code tag} is {@code ref}'s cut tag for; empty when it is not one. */
  public static OptionalLong momentOfTag(String ref, String tag) {
    if (!tag.startsWith(ref + "-")) {
      return OptionalLong.empty();
    }
    String stamp = tag.substring(ref.length() + 1);
    if (!STAMP_SHAPE.matcher(stamp).matches()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Instant.from(STAMP.parse(stamp)).toEpochMilli());
    } catch (DateTimeParseException e) {
      return OptionalLong.empty();
    }
  }

  /** Whether {@code tag} is one of {@code ref}'s: its moving tag or one of its cut tags. */
  public static boolean isOf(String ref, String tag) {
    return tag.equals(ref) || momentOfTag(ref, tag).isPresent();
  }

  /** The newest moment {@code ref} tagged among {@code tags}; empty before the first. */
  public static OptionalLong newest(String ref, Collection<String> tags) {
    OptionalLong newest = OptionalLong.empty();
    for (String tag : tags) {
      OptionalLong moment = momentOfTag(ref, tag);
      if (moment.isPresent() && (newest.isEmpty() || moment.getAsLong() > newest.getAsLong())) {
        newest = moment;
      }
    }
    return newest;
  }

  /**
   * The cut tags a replica carries: those its state records ({@code cutTags}, as the group's
   * tagging wrote them) that its current metadata holds at the same snapshot. A ref merely named
   * like a cut tag is not one, and a tag recorded by a commit not published yet is not carried.
   */
  public static Set<String> carried(TableMetadata replica, Map<String, Long> cutTags) {
    return carried(replica.refs(), cutTags);
  }

  /** As above, given a replica version's refs: name → snapshot id. */
  public static Set<String> carried(Map<String, Long> refs, Map<String, Long> cutTags) {
    Set<String> carried = new TreeSet<>();
    cutTags.forEach(
        (tag, snapshotId) -> {
          if (snapshotId.equals(refs.get(tag))) {
            carried.add(tag);
          }
        });
    return carried;
  }

  /**
   * The newest cut tag of {@code ref} that every table carries, given each table's ref names: the
   * cut a reader of all of them, or a consistent promotion, may name. Empty when none is common.
   */
  public static Optional<String> newestOnAll(String ref, List<? extends Collection<String>> refs) {
    Set<String> common = null;
    for (Collection<String> names : refs) {
      Set<String> tags = new HashSet<>(names);
      tags.removeIf(tag -> momentOfTag(ref, tag).isEmpty());
      if (common == null) {
        common = tags;
      } else {
        common.retainAll(tags);
      }
    }
    OptionalLong newest = newest(ref, common == null ? Set.of() : common);
    return newest.isPresent() ? Optional.of(name(ref, newest.getAsLong())) : Optional.empty();
  }

  /**
   * A table's cut tags once {@code ref}'s cut moved to {@code momentMs}, where the table's {@code
   * main} showed {@code snapshotId}: the new cut tag added, the moving tag at it, this ref's cut
   * tags older than {@code keepFromMs} dropped (the newest always stays), other groups' tags
   * untouched. A cut not newer than the newest one tagged changes nothing: cuts only move forward.
   *
   * @param tags every group's cut tags on the table now
   */
  public static Map<String, Long> moved(
      Map<String, Long> tags, String ref, long momentMs, long snapshotId, long keepFromMs) {
    OptionalLong newest = newest(ref, tags.keySet());
    if (newest.isPresent() && newest.getAsLong() >= momentMs) {
      return tags;
    }
    Map<String, Long> after = new LinkedHashMap<>();
    tags.forEach(
        (tag, id) -> {
          if (!isOf(ref, tag)) {
            after.put(tag, id);
            return;
          }
          OptionalLong moment = momentOfTag(ref, tag);
          if (moment.isPresent() && moment.getAsLong() >= keepFromMs) {
            after.put(tag, id);
          }
        });
    after.put(name(ref, momentMs), snapshotId);
    after.put(ref, snapshotId);
    return after;
  }

  /** {@link #moved}'s drop horizon: cut tags are kept for {@code keep} after their moment. */
  public static long keepFrom(long nowMs, Duration keep) {
    return nowMs - keep.toMillis();
  }

  /**
   * The ref-only replica commit that sets the replica's cut tags from {@code before} to {@code
   * after}: every other field as it is, the replaced file appended to {@code metadata-log}.
   *
   * @param replicaFile the replica's current metadata file, which this commit replaces
   */
  public static TableMetadata commit(
      TableMetadata replica,
      String replicaFile,
      Map<String, Long> before,
      Map<String, Long> after,
      long commitTimeMs) {
    TableMetadata.Builder builder = replica.toBuilder();
    ObjectNode fields = builder.fields();
    ObjectNode refs = fields.with(REFS);
    before.keySet().stream().filter(tag -> !after.containsKey(tag)).forEach(refs::remove);
    after.forEach(
        (tag, id) -> {
          if (!id.equals(before.get(tag)) || refs.get(tag) == null) {
            MetadataMerge.putKeptTag(refs, tag, id);
          }
        });
    ReplicaCommits.setMetadataLog(
        builder,
        Optional.of(replica),
        Optional.of(replicaFile),
        ReplicaCommits.previousVersionsMax(replica));
    ReplicaCommits.setLastUpdatedMs(
        fields, Optional.of(replica), commitTimeMs, replica.lastUpdatedMs());
    return builder.build("replica " + replica.location() + " with its group cut tags");
  }

  /**
   * Why {@code ref} cannot tag this table, empty when it can: a ref of the source's (replicated
   * into the replica) already bears one of its names.
   */
  public static Optional<String> clash(TableMetadata replica, String ref, Map<String, Long> tags) {
    for (String name : replica.refs().keySet()) {
      if (isOf(ref, name) && !tags.containsKey(name)) {
        return Optional.of(
            "the table has a ref '" + name + "' of its own, which the group's tags would replace");
      }
    }
    return Optional.empty();
  }
}
