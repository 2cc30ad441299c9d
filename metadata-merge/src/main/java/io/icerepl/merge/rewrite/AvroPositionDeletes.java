package io.icerepl.merge.rewrite;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileConstants;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/** Avro position deletes: streamed record by record with the file's own writer schema. */
final class AvroPositionDeletes {
  private AvroPositionDeletes() {}

  static RewrittenFile rewrite(
      SeekableInput in, OutputStream out, String fileName, Function<String, String> mapPath)
      throws IOException {
    CountingOutput counting = new CountingOutput(out);
    long expectedRecords = AvroBlockWalk.countRecords(in, fileName);
    try (InputStream stream = new SeekableInputFile(in).newStream();
        DataFileStream<GenericRecord> records =
            new DataFileStream<>(stream, new GenericDatumReader<>())) {
      Schema schema = records.getSchema();
      int pathPos = filePathPosition(schema, fileName);

      DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema));
      for (String key : records.getMetaKeys()) {
        if (!key.startsWith("avro.")) {
          writer.setMeta(key, records.getMeta(key));
        }
      }
      String codec = records.getMetaString(DataFileConstants.CODEC);
      writer.setCodec(CodecFactory.fromString(codec == null ? DataFileConstants.NULL_CODEC : codec));
      writer.create(schema, counting);

      GenericRecord record = null;
      long count = 0;
      while (records.hasNext()) {
        count += 1;
        record = records.next(record);
        Object path = record.get(pathPos);
        if (path == null) {
          throw new BadInputException(
              "Cannot read position delete file " + fileName + ": a row has no file_path");
        }
        record.put(pathPos, mapPath.apply(path.toString()));
        writer.append(record);
      }
      if (count != expectedRecords) {
        throw new BadInputException(
            "Cannot read position delete file "
                + fileName
                + ": read "
                + count
                + " records where its blocks declare "
                + expectedRecords);
      }
      writer.close();
      return new RewrittenFile(counting.count(), null);
    } catch (IOException | RuntimeException e) {
      throw PositionDeleteRewriter.failure(e, counting, fileName);
    }
  }

  static RewrittenFile describe(SeekableInput replicaFile, String fileName) throws IOException {
    // The walk checks that the replica is a whole Avro data file; reading the header, its schema.
    AvroBlockWalk.countRecords(replicaFile, fileName);
    try (InputStream stream = new SeekableInputFile(replicaFile).newStream();
        DataFileStream<GenericRecord> records =
            new DataFileStream<>(stream, new GenericDatumReader<>())) {
      return new RewrittenFile(replicaFile.length(), null);
    }
  }

  private static int filePathPosition(Schema schema, String fileName) {
    if (schema.getType() != Schema.Type.RECORD) {
      throw new BadInputException(
          "Cannot read position delete file " + fileName + ": its schema is not a record");
    }
    Schema.Field byName = null;
    for (Schema.Field field : schema.getFields()) {
      Object id = field.getObjectProp("field-id");
      if (id != null && id.toString().equals(Integer.toString(PositionDeleteRewriter.FILE_PATH_ID))) {
        return checkString(field, fileName);
      }
      if (id == null && field.name().equals(PositionDeleteRewriter.FILE_PATH_NAME)) {
        byName = field;
      }
    }
    if (byName != null) {
      return checkString(byName, fileName);
    }
    throw new BadInputException(
        "Cannot read position delete file "
            + fileName
            + ": it has no file_path field (field id "
            + PositionDeleteRewriter.FILE_PATH_ID
            + ")");
  }

  private static int checkString(Schema.Field field, String fileName) {
    if (field.schema().getType() != Schema.Type.STRING) {
      throw new BadInputException(
          "Cannot read position delete file "
              + fileName
              + ": file_path is of type "
              + field.schema());
    }
    return field.pos();
  }
}
