package io.icerepl.merge.deletes;

import io.icerepl.merge.io.ByteArraySeekableInput;
import io.icerepl.merge.io.SeekableInput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/** Real Iceberg tables and files for the rewriter tests. */
public final class DeleteFixtures {
  public static final Schema TABLE_SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));

  public static final String TARGET = "s3://replica-bucket/warehouse/db/tbl";

  private DeleteFixtures() {}

  /** A position delete; the row (index 2 of the struct) only when given. */
  public static PositionDelete<Record> positionDelete(String path, long pos, Record row) {
    PositionDelete<Record> delete = PositionDelete.<Record>create().set(path, pos);
    if (row != null) {
      delete.set(2, row);
    }
    return delete;
  }

  public static Table createTable(Path dir, int formatVersion) {
    return new HadoopTables(new Configuration())
        .create(
            TABLE_SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", Integer.toString(formatVersion)),
            "file:" + dir.resolve("tbl"));
  }

  public static SeekableInput input(Path file) throws IOException {
    return new ByteArraySeekableInput(Files.readAllBytes(file));
  }

  public static SeekableInput truncated(Path file, int keep) throws IOException {
    return new ByteArraySeekableInput(Arrays.copyOf(Files.readAllBytes(file), keep));
  }

  public static Path save(Path dir, String name, ByteArrayOutputStream bytes) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, bytes.toByteArray());
    return file;
  }

  /** Records whether close() was called on it. */
  public static final class TrackingOutput extends ByteArrayOutputStream {
    public boolean closed = false;

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }
  }
}
