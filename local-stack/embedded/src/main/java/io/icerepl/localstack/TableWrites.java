package io.icerepl.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.DataWriter;

/**
 * Writes files into a table with the Iceberg library, the reference writer: sample tables for the
 * demo and the benchmarks are made exactly as an engine would make them.
 */
public final class TableWrites {
  private TableWrites() {}

  /** A new Parquet data file holding {@code rows}, in {@code partition} (null if unpartitioned). */
  public static DataFile writeData(Table table, StructLike partition, List<Record> rows) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    String name = UUID.randomUUID() + ".parquet";
    String path =
        partition == null
            ? table.locationProvider().newDataLocation(name)
            : table.locationProvider().newDataLocation(table.spec(), partition, name);
    DataWriter<Record> writer =
        writers.newDataWriter(
            EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)),
            table.spec(),
            partition);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** A new Parquet position delete file deleting {@code positions} of one data file. */
  public static DeleteFile writePositionDeletes(Table table, DataFile dataFile, long... positions) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    String name = UUID.randomUUID() + "-deletes.parquet";
    // an unpartitioned table's location has no partition folder: spelled with one, it would be
    // data//<name>, which S3 signs differently than the path it stores
    String path =
        table.spec().isUnpartitioned()
            ? table.locationProvider().newDataLocation(name)
            : table.locationProvider().newDataLocation(table.spec(), dataFile.partition(), name);
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path)),
            table.spec(),
            dataFile.partition());
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
}
