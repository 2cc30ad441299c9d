package io.icerepl.app.scenario;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a source table showed, recorded with the Iceberg library while the scenario was written and
 * before anything expired: the rows of every snapshot, each snapshot's facts, the answer of {@code
 * asOfTime} for every probed timestamp, every ref, and some table-level facts.
 *
 * <p>Recording again (after more commits, an expiry or a rollback) merges: snapshots once recorded
 * keep their rows; refs and table facts show the latest state; an {@code asOfTime} answer is
 * replaced by the source's newer answer unless the source can no longer answer it (its history was
 * truncated by an expiry), in which case the older answer is kept and marked historical.
 */
public final class ScenarioExpectations {

  /** Facts of one snapshot that a replica must reproduce exactly. */
  public record SnapshotFacts(
      long snapshotId,
      Long parentId,
      long sequenceNumber,
      long timestampMillis,
      String operation,
      Integer schemaId,
      Long firstRowId,
      Long addedRows,
      Map<String, String> summary) {}

  /**
   * The answer of {@code asOfTime(timestamp)}: {@code snapshotId == null} means the table had no
   * snapshot that old (the read fails). {@code historical} means the source no longer answers this
   * (its snapshot log was truncated by an expiry) and the answer is the one it gave before.
   */
  public record AsOfAnswer(Long snapshotId, List<String> rows, boolean historical) {
    static AsOfAnswer none() {
      return new AsOfAnswer(null, List.of(), false);
    }
  }

  /** A branch or tag and the rows it reads. */
  public record RefFacts(String name, boolean branch, long snapshotId, List<String> rows) {}

  /** Table-level facts a replica must show the same way. Maps are keyed by id, values are JSON. */
  public record TableFacts(
      int formatVersion,
      Long currentSnapshotId,
      int currentSchemaId,
      int defaultSpecId,
      int defaultSortOrderId,
      long lastSequenceNumber,
      Long nextRowId,
      List<Long> statisticsSnapshotIds,
      List<Long> partitionStatisticsSnapshotIds,
      Map<Integer, String> schemas,
      Map<Integer, String> specs,
      Map<Integer, String> sortOrders) {}

  private final Map<Long, List<String>> snapshotRows = new LinkedHashMap<>();
  private final Map<Long, List<String>> lineageRows = new LinkedHashMap<>();
  private final Map<Long, SnapshotFacts> snapshots = new LinkedHashMap<>();
  private final TreeMap<Long, AsOfAnswer> asOfTime = new TreeMap<>();
  private final Map<String, RefFacts> refs = new LinkedHashMap<>();
  private TableFacts table;

  /** Rows per snapshot id, in the order recorded. */
  public Map<Long, List<String>> snapshotRows() {
    return Collections.unmodifiableMap(snapshotRows);
  }

  /**
   * For v3 tables, rows per snapshot id read with {@code _row_id} and {@code
   * _last_updated_sequence_number} (null before an upgrade to v3).
   */
  public Map<Long, List<String>> lineageRows() {
    return Collections.unmodifiableMap(lineageRows);
  }

  /** Facts per snapshot id. */
  public Map<Long, SnapshotFacts> snapshots() {
    return Collections.unmodifiableMap(snapshots);
  }

  /** Timestamp (ms) to the answer of {@code asOfTime}. */
  public Map<Long, AsOfAnswer> asOfTime() {
    return Collections.unmodifiableMap(asOfTime);
  }

  /** Refs by name, as of the latest recording. */
  public Map<String, RefFacts> refs() {
    return Collections.unmodifiableMap(refs);
  }

  /** Table facts as of the latest recording. */
  public TableFacts table() {
    return table;
  }

  void putSnapshot(SnapshotFacts facts, List<String> rows) {
    snapshots.putIfAbsent(facts.snapshotId(), facts);
    snapshotRows.putIfAbsent(facts.snapshotId(), rows);
  }

  void putLineage(long snapshotId, List<String> rows) {
    lineageRows.putIfAbsent(snapshotId, rows);
  }

  boolean hasSnapshot(long snapshotId) {
    return snapshotRows.containsKey(snapshotId);
  }

  void putAsOfTime(long timestampMillis, AsOfAnswer answer) {
    AsOfAnswer previous = asOfTime.get(timestampMillis);
    if (answer.snapshotId() == null && previous != null && previous.snapshotId() != null) {
      asOfTime.put(timestampMillis, new AsOfAnswer(previous.snapshotId(), previous.rows(), true));
    } else {
      asOfTime.put(timestampMillis, answer);
    }
  }

  void replaceRefs(Map<String, RefFacts> newRefs) {
    refs.clear();
    refs.putAll(newRefs);
  }

  void setTable(TableFacts facts) {
    this.table = facts;
  }
}
