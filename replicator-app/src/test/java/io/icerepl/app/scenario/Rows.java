package io.icerepl.app.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Reads a table's rows as a comparable value: a sorted multiset of strings, one per row, each
 * naming its columns ({@code {id=1, data=a}}), so a read with an older schema differs from one with
 * a newer schema even when the values agree.
 */
final class Rows {
  private Rows() {}

  /** The rows snapshot {@code snapshotId} reads, sorted. */
  static List<String> atSnapshot(Table table, long snapshotId) {
    return read(IcebergGenerics.read(table).useSnapshot(snapshotId).build());
  }

  /**
   * The rows snapshot {@code snapshotId} reads with the row lineage columns {@code _row_id} and
   * {@code _last_updated_sequence_number} projected after the snapshot's columns (v3 tables).
   */
  static List<String> lineageAtSnapshot(Table table, long snapshotId) {
    Integer schemaId = table.snapshot(snapshotId).schemaId();
    Schema schema = schemaId == null ? table.schema() : table.schemas().get(schemaId);
    Schema projection =
        TypeUtil.join(
            schema,
            new Schema(MetadataColumns.ROW_ID, MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER));
    return read(IcebergGenerics.read(table).useSnapshot(snapshotId).project(projection).build());
  }

  /**
   * The rows {@code asOfTime(timestampMillis)} reads, sorted. Throws if no snapshot is that old.
   */
  static List<String> asOfTime(Table table, long timestampMillis) {
    return read(IcebergGenerics.read(table).asOfTime(timestampMillis).build());
  }

  static List<String> read(CloseableIterable<Record> records) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> closing = records) {
      for (Record record : closing) {
        rows.add(format(record));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Collections.sort(rows);
    return List.copyOf(rows);
  }

  static String format(Record record) {
    StringBuilder out = new StringBuilder("{");
    List<Types.NestedField> fields = record.struct().fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).fieldId() == MetadataColumns.ROW_POSITION.fieldId()) {
        continue; // the generic reader adds _pos when it applies position deletes
      }
      if (out.length() > 1) {
        out.append(", ");
      }
      out.append(fields.get(i).name()).append('=').append(record.get(i));
    }
    return out.append('}').toString();
  }

  /** A short human description of how two sorted row lists differ. */
  static String diff(List<String> expected, List<String> actual) {
    List<String> missing = new ArrayList<>(expected);
    actual.forEach(missing::remove);
    List<String> extra = new ArrayList<>(actual);
    expected.forEach(extra::remove);
    return "missing " + missing + ", unexpected " + extra;
  }
}
