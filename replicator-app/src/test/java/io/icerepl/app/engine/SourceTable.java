package io.icerepl.app.engine;

import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** A small partitioned source table written with the Iceberg library, the independent writer. */
public final class SourceTable {
  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "category", Types.StringType.get()));

  public static final HadoopTables TABLES = new HadoopTables(new Configuration());

  public final String location;
  public final Table table;
  private long nextId = 1;

  private SourceTable(String location, Table table) {
    this.location = location;
    this.table = table;
  }

  public static SourceTable create(Path dir, int formatVersion) {
    String location = dir.toUri().toString();
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
    Table table =
        TABLES.create(
            SCHEMA,
            spec,
            Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)),
            location);
    return new SourceTable(location, table);
  }

  /**
   * An existing table at {@code location} (e.g. a promoted replica), writing ids from {@code
   * firstId} on.
   */
  public static SourceTable open(String location, long firstId) {
    SourceTable table = new SourceTable(location, TABLES.load(location));
    table.nextId = firstId;
    return table;
  }

  /** A table opened elsewhere (e.g. through a catalog), writing ids from {@code firstId} on. */
  public static SourceTable of(Table table, long firstId) {
    SourceTable source = new SourceTable(table.location(), table);
    source.nextId = firstId;
    return source;
  }

  public DataFile append(String category, int rows) {
    DataFile file = writeData(category, rows);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  public DataFile writeData(String category, int rows) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", nextId++, "category", category)));
    }
    return TableWrites.writeData(table, partition, records);
  }

  public DeleteFile deletePositions(DataFile dataFile, long... positions) {
    DeleteFile deletes = writePositionDeletes(dataFile, positions);
    table.newRowDelta().addDeletes(deletes).commit();
    return deletes;
  }

  public DeleteFile writePositionDeletes(DataFile dataFile, long... positions) {
    return TableWrites.writePositionDeletes(table, dataFile, positions);
  }

  /** Rows a table reads as of a time ({@code asOfTime}), sorted, as strings. */
  public static List<String> rowsAsOf(Table table, long timestampMillis) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).asOfTime(timestampMillis).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  /** Rows a table reads at a snapshot, sorted, as strings. */
  public static List<String> rows(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }
}
