package io.icerepl.merge.deletes;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.AvroContainer;
import io.icerepl.merge.manifest.RewrittenFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericRecord;

/** Avro position deletes: streamed record by record with the file's own writer schema. */
final class AvroPositionDeletes {
  private static final String NOUN = "position delete file ";

  private AvroPositionDeletes() {}

  static RewrittenFile rewrite(
      SeekableInput in, OutputStream out, String fileName, Function<String, String> mapPath)
      throws IOException {
    CountingOutput counting = new CountingOutput(out);
    try (InputStream stream = new SeekableInputFile(in).newStream();
        AvroContainer source = AvroContainer.open(stream, NOUN + fileName)) {
      int pathPos = filePathPosition(source.schema(), fileName);
      DataFileWriter<GenericRecord> writer = source.newWriter(counting);
      for (GenericRecord record = source.next(); record != null; record = source.next()) {
        Object path = record.get(pathPos);
        if (path == null) {
          throw new BadInputException(
              "Cannot read position delete file " + fileName + ": a row has no file_path");
        }
        record.put(pathPos, mapPath.apply(path.toString()));
        source.append(writer, record);
      }
      source.finish(writer);
      return new RewrittenFile(counting.count(), null);
    } catch (IOException | RuntimeException e) {
      throw PositionDeleteRewriter.failure(e, counting, fileName);
    }
  }

  /** Reads the replica file through to its end, so that a truncated one is not taken as done. */
  static RewrittenFile describe(SeekableInput replicaFile, String fileName) throws IOException {
    try (InputStream stream = new SeekableInputFile(replicaFile).newStream();
        AvroContainer replica = AvroContainer.open(stream, NOUN + fileName)) {
      while (replica.next() != null) {
        // every block is decoded and checked
      }
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
      if (id != null
          && id.toString().equals(Integer.toString(PositionDeleteRewriter.FILE_PATH_ID))) {
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
