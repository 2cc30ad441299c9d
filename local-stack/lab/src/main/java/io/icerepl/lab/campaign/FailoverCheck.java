package io.icerepl.lab.campaign;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;

/**
 * What a failover drill requires once fail-back has finished, read with the Iceberg library alone:
 * the original holds every snapshot of the promoted table with the same rows, its refs and its
 * current snapshot; every old-source commit the promoted table never got reads, with the rows the
 * writer recorded, under an orphan tag the fail-back printed; and no commit of either writer is
 * lost.
 */
final class FailoverCheck {
  /** The outcome: the commits checked, the orphans, the commits lost and what was wrong. */
  record Result(
      int sourceCommits, int promotedCommits, int orphans, int lost, List<String> problems) {
    Result {
      problems = List.copyOf(problems);
    }

    Verdict verdict() {
      return new Verdict()
          .check("the original holds the promoted history", !problem("promoted"))
          .check("every orphan under a printed orphan tag", !problem("orphan"))
          .check("no commit lost", lost == 0);
    }

    private boolean problem(String kind) {
      return problems.stream().anyMatch(p -> p.startsWith(kind));
    }
  }

  private FailoverCheck() {}

  /**
   * @param sourceRows the rows of each snapshot the old source's writer committed, as it read them
   * @param promotedRows the same for the writer on the promoted table
   * @param orphanTags the orphan tags the fail-back printed, name to snapshot id
   */
  static Result check(
      String originalLocation,
      String promotedLocation,
      Map<Long, List<String>> sourceRows,
      Map<Long, List<String>> promotedRows,
      Map<String, Long> orphanTags) {
    HadoopTables tables = new HadoopTables(new Configuration());
    Table original = tables.load(originalLocation);
    Table promoted = tables.load(promotedLocation);
    List<String> problems = new ArrayList<>();

    Set<Long> promotedIds = new HashSet<>();
    for (Snapshot snapshot : promoted.snapshots()) {
      long id = snapshot.snapshotId();
      promotedIds.add(id);
      if (original.snapshot(id) == null) {
        problems.add("promoted snapshot " + id + " is not in the original");
      } else {
        List<String> expected = CampaignSource.rows(promoted, id);
        List<String> read = CampaignSource.rows(original, id);
        if (!read.equals(expected)) {
          problems.add(
              "promoted snapshot "
                  + id
                  + " reads other rows in the original: "
                  + diff(expected, read));
        }
      }
    }
    if (!Objects.equals(currentId(original), currentId(promoted))) {
      problems.add(
          "promoted table's current snapshot "
              + currentId(promoted)
              + " is "
              + currentId(original)
              + " in the original");
    }
    promoted
        .refs()
        .forEach(
            (name, ref) -> {
              SnapshotRef held = original.refs().get(name);
              if (held == null || held.snapshotId() != ref.snapshotId()) {
                problems.add("promoted ref " + name + " is " + held + " in the original");
              }
            });

    // the old source's commits fail-back found the promoted table without
    Set<Long> underTags = new HashSet<>();
    orphanTags.forEach(
        (tag, id) -> {
          SnapshotRef ref = original.refs().get(tag);
          if (ref == null || !ref.isTag() || ref.snapshotId() != id) {
            problems.add("orphan tag " + tag + " -> " + id + " is " + ref + " in the original");
          } else {
            underTags.addAll(ancestry(original, id));
          }
        });
    int orphans = 0;
    Set<Long> lost = new HashSet<>();
    for (Map.Entry<Long, List<String>> commit : sourceRows.entrySet()) {
      long id = commit.getKey();
      if (promotedIds.contains(id)) {
        continue;
      }
      orphans++;
      if (!underTags.contains(id)) {
        problems.add("orphan snapshot " + id + " is under no printed orphan tag");
        lost.add(id);
      }
    }
    Map<Long, List<String>> written = new LinkedHashMap<>(sourceRows);
    written.putAll(promotedRows);
    written.forEach(
        (id, rows) -> {
          if (original.snapshot(id) == null) {
            problems.add("lost commit: snapshot " + id + " is not in the original");
            lost.add(id);
          } else {
            List<String> read = CampaignSource.rows(original, id);
            if (!read.equals(rows)) {
              problems.add(
                  "lost commit: snapshot "
                      + id
                      + " reads other rows in the original: "
                      + diff(rows, read));
              lost.add(id);
            }
          }
        });
    return new Result(sourceRows.size(), promotedRows.size(), orphans, lost.size(), problems);
  }

  /** The rows one side misses and the rows it has too many, a few of each. */
  private static String diff(List<String> expected, List<String> read) {
    List<String> missing = new ArrayList<>(expected);
    missing.removeAll(read);
    List<String> extra = new ArrayList<>(read);
    extra.removeAll(expected);
    return read.size()
        + " rows for "
        + expected.size()
        + ", missing "
        + missing.stream().limit(3).toList()
        + ", extra "
        + extra.stream().limit(3).toList();
  }

  private static Long currentId(Table table) {
    return table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
  }

  /** A snapshot and its parents, as far as the table still holds them. */
  private static Set<Long> ancestry(Table table, long id) {
    Set<Long> ids = new HashSet<>();
    Snapshot snapshot = table.snapshot(id);
    while (snapshot != null && ids.add(snapshot.snapshotId())) {
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return ids;
  }
}
