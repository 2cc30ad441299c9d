package io.icerepl.app.replicate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/** A small partitioned source table written with the Iceberg library, the independent writer. */
final class SourceTable {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "category", Types.StringType.get()));

  static final HadoopTables TABLES = new HadoopTables(new Configuration());

  final String location;
  final Table table;
  private long nextId = 1;

  private SourceTable(String location, Table table) {
    this.location = location;
    this.table = table;
  }

  static SourceTable create(Path dir, int formatVersion) {
    String location = dir.toUri().toString();
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
    Table table =
        TABLES.create(SCHEMA, spec, Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)), location);
    return new SourceTable(location, table);
  }

  DataFile append(String category, int rows) {
    DataFile file = writeData(category, rows);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  DataFile writeData(String category, int rows) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    String path = table.locationProvider().newDataLocation(table.spec(), partition, UUID.randomUUID() + ".parquet");
    DataWriter<Record> writer =
        writers.newDataWriter(EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)), table.spec(), partition);
    try (writer) {
      for (int i = 0; i < rows; i++) {
        writer.write(record.copy(Map.of("id", nextId++, "category", category)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  DeleteFile deletePositions(DataFile dataFile, long... positions) {
    DeleteFile deletes = writePositionDeletes(dataFile, positions);
    table.newRowDelta().addDeletes(deletes).commit();
    return deletes;
  }

  DeleteFile writePositionDeletes(DataFile dataFile, long... positions) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    String path =
        table.locationProvider().newDataLocation(table.spec(), dataFile.partition(), UUID.randomUUID() + "-deletes.parquet");
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)), table.spec(), dataFile.partition());
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (long position : positions) {
        writer.write(delete.set(dataFile.location(), position));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** Rows a table reads at a snapshot, sorted, as strings. */
  static List<String> rows(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }
}
