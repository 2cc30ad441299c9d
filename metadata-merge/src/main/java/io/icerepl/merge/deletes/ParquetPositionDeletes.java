package io.icerepl.merge.deletes;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.io.DecodeBounds;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.RewrittenFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Parquet position deletes: read row group by row group with the example Group model, write with a
 * Parquet writer that recomputes statistics, so file_path's min/max describe mapped paths.
 */
final class ParquetPositionDeletes {
  private ParquetPositionDeletes() {}

  private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);

  /** One row read from the source and the replica path its file_path becomes. */
  private record Row(Group group, String mappedPath) {}

  static RewrittenFile rewrite(
      SeekableInput in, OutputStream out, String fileName, Function<String, String> mapPath)
      throws IOException {
    rejectEncryptedFooter(in, fileName);
    CountingOutput counting = new CountingOutput(out);
    ParquetCodecs codecs = new ParquetCodecs();
    try (ParquetFileReader reader = open(in, codecs, fileName)) {
      ParquetMetadata footer = reader.getFooter();
      MessageType schema = footer.getFileMetaData().getSchema();
      int pathIndex = filePathIndex(schema, fileName);
      Map<String, String> keyValue = new HashMap<>(footer.getFileMetaData().getKeyValueMetaData());

      ParquetWriter<Row> writer =
          new Builder(counting.asOutputFile(fileName), schema, keyValue, pathIndex)
              .withConf(new Configuration(false))
              .withCompressionCodec(codecOf(footer))
              .withCodecFactory(codecs)
              .build();

      MessageColumnIO columnIO = new ColumnIOFactory().getColumnIO(schema);
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records =
            columnIO.getRecordReader(pages, new GroupRecordConverter(schema));
        long rows = pages.getRowCount();
        for (long i = 0; i < rows; i++) {
          Group group = records.read();
          writer.write(new Row(group, mapPath.apply(filePath(group, pathIndex, fileName))));
        }
      }
      writer.close();
      return new RewrittenFile(counting.count(), splitOffsets(writer.getFooter()));
    } catch (IOException | RuntimeException e) {
      throw PositionDeleteRewriter.failure(e, counting, fileName);
    } finally {
      codecs.release();
    }
  }

  static RewrittenFile describe(SeekableInput replicaFile, String fileName) throws IOException {
    rejectEncryptedFooter(replicaFile, fileName);
    try (ParquetFileReader reader = open(replicaFile, new ParquetCodecs(), fileName)) {
      return new RewrittenFile(replicaFile.length(), splitOffsets(reader.getFooter()));
    }
  }

  /** Parquet modular encryption with an encrypted footer ends the file with "PARE", not "PAR1". */
  private static void rejectEncryptedFooter(SeekableInput in, String fileName) throws IOException {
    long length = in.length();
    if (length < ENCRYPTED_MAGIC.length) {
      return; // too short for Parquet at all: the reader says so
    }
    byte[] tail = new byte[ENCRYPTED_MAGIC.length];
    in.readFully(length - tail.length, tail, 0, tail.length);
    if (Arrays.equals(tail, ENCRYPTED_MAGIC)) {
      throw new UnsupportedFeatureException(
          "Cannot rewrite position delete file "
              + fileName
              + ": it is an encrypted Parquet file, which is not supported");
    }
  }

  /**
   * Opens the file once the lengths its tail and footer claim are checked: Parquet's reader
   * allocates the footer, and each row group's column chunks, as large as claimed before reading.
   */
  private static ParquetFileReader open(SeekableInput in, ParquetCodecs codecs, String fileName)
      throws IOException {
    long length = in.length();
    if (length >= 12) { // shorter is no Parquet file at all: the reader says so
      byte[] tail = new byte[8];
      in.readFully(length - tail.length, tail, 0, tail.length);
      long footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      DecodeBounds.checkClaim(
          "the Parquet footer of " + fileName,
          footerLength,
          (int) Math.min(DecodeBounds.PARQUET_FOOTER_BYTES, length - 12));
    }
    ParquetFileReader reader =
        ParquetFileReader.open(
            new SeekableInputFile(in),
            ParquetReadOptions.builder().withCodecFactory(codecs).build());
    try {
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      for (int i = 0; i < blocks.size(); i++) {
        for (ColumnChunkMetaData column : blocks.get(i).getColumns()) {
          DecodeBounds.checkInside(
              "row group " + i + "'s column " + column.getPath() + " in " + fileName,
              column.getStartingPos(),
              column.getTotalSize(),
              length);
        }
      }
      return reader;
    } catch (IOException | RuntimeException e) {
      reader.close();
      throw e;
    }
  }

  /** The codec of the first column chunk: Iceberg writes every chunk with one codec. */
  private static CompressionCodecName codecOf(ParquetMetadata footer) {
    for (BlockMetaData block : footer.getBlocks()) {
      if (!block.getColumns().isEmpty()) {
        return block.getColumns().get(0).getCodec();
      }
    }
    return CompressionCodecName.UNCOMPRESSED;
  }

  /** Row-group starting positions, as Iceberg records them in a manifest's split_offsets. */
  private static List<Long> splitOffsets(ParquetMetadata footer) {
    List<Long> offsets = new ArrayList<>();
    for (BlockMetaData block : footer.getBlocks()) {
      offsets.add(block.getStartingPos());
    }
    offsets.sort(null);
    return offsets;
  }

  private static int filePathIndex(MessageType schema, String fileName) {
    for (int i = 0; i < schema.getFieldCount(); i++) {
      Type field = schema.getType(i);
      if (field.getId() != null
          && field.getId().intValue() == PositionDeleteRewriter.FILE_PATH_ID) {
        return checkPathType(field, fileName, i);
      }
    }
    // Without field ids, fall back on the name the spec gives the column.
    for (int i = 0; i < schema.getFieldCount(); i++) {
      Type field = schema.getType(i);
      if (field.getId() == null && field.getName().equals(PositionDeleteRewriter.FILE_PATH_NAME)) {
        return checkPathType(field, fileName, i);
      }
    }
    throw new BadInputException(
        "Cannot read position delete file "
            + fileName
            + ": it has no file_path column (field id "
            + PositionDeleteRewriter.FILE_PATH_ID
            + ")");
  }

  private static int checkPathType(Type field, String fileName, int index) {
    if (!field.isPrimitive()
        || field.asPrimitiveType().getPrimitiveTypeName() != PrimitiveType.PrimitiveTypeName.BINARY
        || field.isRepetition(Type.Repetition.REPEATED)) {
      throw new BadInputException(
          "Cannot read position delete file " + fileName + ": file_path column is " + field);
    }
    return index;
  }

  private static String filePath(Group group, int pathIndex, String fileName) {
    if (group.getFieldRepetitionCount(pathIndex) != 1) {
      throw new BadInputException(
          "Cannot read position delete file " + fileName + ": a row has no file_path");
    }
    return group.getString(pathIndex, 0);
  }

  private static final class Builder extends ParquetWriter.Builder<Row, Builder> {
    private final MessageType schema;
    private final Map<String, String> keyValue;
    private final int pathIndex;

    Builder(OutputFile file, MessageType schema, Map<String, String> keyValue, int pathIndex) {
      super(file);
      this.schema = schema;
      this.keyValue = keyValue;
      this.pathIndex = pathIndex;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Row> getWriteSupport(Configuration conf) {
      return new RowWriteSupport(schema, keyValue, pathIndex);
    }
  }

  /**
   * Writes the rows as read, except file_path. The source's key-value metadata is handed over
   * whole; getName returns the source's own writer.model.name (or null) so that Parquet does not
   * add or replace it.
   */
  private static final class RowWriteSupport extends WriteSupport<Row> {
    private final MessageType schema;
    private final Map<String, String> keyValue;
    private final int pathIndex;
    private RecordConsumer consumer;

    RowWriteSupport(MessageType schema, Map<String, String> keyValue, int pathIndex) {
      this.schema = schema;
      this.keyValue = keyValue;
      this.pathIndex = pathIndex;
    }

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(schema, keyValue);
    }

    @Override
    public String getName() {
      return keyValue.get(ParquetWriter.OBJECT_MODEL_NAME_PROP);
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(Row row) {
      consumer.startMessage();
      writeFields(row.group(), schema, pathIndex, row.mappedPath());
      consumer.endMessage();
    }

    private void writeFields(Group group, GroupType type, int replaced, String replacement) {
      for (int field = 0; field < type.getFieldCount(); field++) {
        Type fieldType = type.getType(field);
        int count = group.getFieldRepetitionCount(field);
        if (count == 0) {
          continue;
        }
        consumer.startField(fieldType.getName(), field);
        if (field == replaced) {
          consumer.addBinary(Binary.fromString(replacement));
        } else {
          for (int i = 0; i < count; i++) {
            if (fieldType.isPrimitive()) {
              group.writeValue(field, i, consumer);
            } else {
              consumer.startGroup();
              writeFields(group.getGroup(field, i), fieldType.asGroupType(), -1, null);
              consumer.endGroup();
            }
          }
        }
        consumer.endField(fieldType.getName(), field);
      }
    }
  }
}
