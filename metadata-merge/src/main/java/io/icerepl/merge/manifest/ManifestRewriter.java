package io.icerepl.merge.manifest;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Reads and rewrites Iceberg manifests (data and delete manifests of any format version), field by
 * field with the file's own Avro writer schema.
 */
public final class ManifestRewriter {

  /** Field id of the file_path column of position-delete files; its bounds are data-file paths. */
  static final int DELETE_FILE_PATH_FIELD_ID = 2147483546;

  private static final int STATUS_DELETED = 2;
  private static final int CONTENT_POSITION_DELETES = 1;

  private ManifestRewriter() {}

  /**
   * The files of the manifest's live entries (ADDED, EXISTING), in file order. DELETED entries are
   * not returned. The input stream is read to its end but not closed.
   *
   * @throws BadInputException when the input is not a readable manifest
   */
  public static List<ManifestEntry> readLiveFiles(InputStream manifest, String fileName) {
    List<ManifestEntry> files = new ArrayList<>();
    read(manifest, fileName, false, files::add);
    return files;
  }

  /**
   * Hands every entry of the manifest, DELETED ones included and with the file_path bound of
   * position delete files, to {@code action} as it is decoded, so only one entry is held at a time.
   * An unreadable entry throws after the entries before it were handed on. The input stream is read
   * to its end but not closed.
   *
   * @throws BadInputException when the input is not a readable manifest
   */
  public static void forEachEntry(
      InputStream manifest, String fileName, Consumer<ManifestEntry> action) {
    read(manifest, fileName, true, action);
  }

  private static void read(
      InputStream manifest, String fileName, boolean allEntries, Consumer<ManifestEntry> action) {
    try (AvroContainer source = AvroContainer.open(manifest, noun(fileName))) {
      Columns columns = Columns.of(source);
      GenericRecord entry;
      while ((entry = source.next()) != null) {
        int status = columns.status(entry, source);
        GenericRecord dataFile = columns.dataFile(entry, source);
        String filePath = columns.filePath(dataFile, source);
        if (status == STATUS_DELETED && !allEntries) {
          continue;
        }
        int content = columns.content(dataFile);
        action.accept(
            new ManifestEntry(
                status,
                content,
                filePath,
                AvroFields.string(dataFile, columns.fileFormat),
                columns.fileSize(dataFile, source),
                AvroFields.string(dataFile, columns.referencedDataFile),
                // replication and retention read live files only, and need no bounds
                content == CONTENT_POSITION_DELETES && allEntries
                    ? columns.deletedPathBound(dataFile)
                    : null));
      }
    }
  }

  /**
   * Streams a manifest into a new one.
   *
   * <p>For every entry, live or deleted: data_file.file_path and data_file.referenced_data_file
   * (when present and non-null) are mapped with {@code mapPath}. For position-delete entries
   * (content 1) the lower_bounds / upper_bounds values of field id 2147483546 are mapped too when
   * they are equal (the exception of {@code mapPath} propagates); differing ones are removed from
   * both maps, the other columns' bounds staying.
   *
   * <p>For a live entry whose source file_path has a non-null {@code rewrittenDeleteFile}, the
   * file_size_in_bytes and (when the schema has it) split_offsets are replaced by its values.
   *
   * <p>Everything else is kept: schema, Avro file metadata, codec, other bounds. Neither stream is
   * closed.
   *
   * @throws BadInputException when the input is not a readable manifest
   * @throws java.io.UncheckedIOException when writing to {@code out} fails
   */
  public static void rewrite(
      InputStream in,
      OutputStream out,
      String fileName,
      Function<String, String> mapPath,
      Function<String, RewrittenFile> rewrittenDeleteFile) {
    Objects.requireNonNull(mapPath, "mapPath");
    Objects.requireNonNull(rewrittenDeleteFile, "rewrittenDeleteFile");
    try (AvroContainer source = AvroContainer.open(in, noun(fileName))) {
      Columns columns = Columns.of(source);
      DataFileWriter<GenericRecord> writer = source.newWriter(out);
      GenericRecord entry;
      while ((entry = source.next()) != null) {
        int status = columns.status(entry, source);
        GenericRecord dataFile = columns.dataFile(entry, source);
        String filePath = columns.filePath(dataFile, source);
        columns.fileSize(dataFile, source);

        dataFile.put(columns.filePath, mapPath.apply(filePath));
        String referenced = AvroFields.string(dataFile, columns.referencedDataFile);
        if (referenced != null) {
          dataFile.put(columns.referencedDataFile, mapPath.apply(referenced));
        }
        if (columns.content(dataFile) == CONTENT_POSITION_DELETES) {
          columns.mapDeletedPathBounds(dataFile, source, mapPath);
        }
        if (status != STATUS_DELETED) {
          RewrittenFile rewritten = rewrittenDeleteFile.apply(filePath);
          if (rewritten != null) {
            dataFile.put(columns.fileSize, rewritten.fileSizeInBytes());
            if (columns.splitOffsets != AvroFields.ABSENT) {
              dataFile.put(columns.splitOffsets, columns.splitOffsetsArray(rewritten));
            }
          }
        }
        source.append(writer, entry);
      }
      source.finish(writer);
    }
  }

  private static String noun(String fileName) {
    return "manifest " + fileName;
  }

  /** Positions of the columns this class reads; {@link AvroFields#ABSENT} when missing. */
  private record Columns(
      int status,
      int dataFile,
      int content,
      int filePath,
      int fileFormat,
      int fileSize,
      int referencedDataFile,
      int splitOffsets,
      Schema splitOffsetsSchema,
      int lowerBounds,
      int upperBounds) {

    static Columns of(AvroContainer source) {
      Schema entry = source.schema();
      if (entry.getType() != Schema.Type.RECORD) {
        throw source.bad("its Avro schema is a " + entry.getType() + ", not a record");
      }
      int status = AvroFields.position(entry, "status");
      if (status == AvroFields.ABSENT) {
        throw source.bad("it has no status field");
      }
      Schema dataFile = AvroFields.nonNullSchema(entry, "data_file");
      if (dataFile == null || dataFile.getType() != Schema.Type.RECORD) {
        throw source.bad("it has no data_file record field");
      }
      int filePath = AvroFields.position(dataFile, "file_path");
      if (filePath == AvroFields.ABSENT) {
        throw source.bad("its data_file has no file_path field");
      }
      int fileSize = AvroFields.position(dataFile, "file_size_in_bytes");
      if (fileSize == AvroFields.ABSENT) {
        throw source.bad("its data_file has no file_size_in_bytes field");
      }
      Schema splitOffsetsSchema = AvroFields.nonNullSchema(dataFile, "split_offsets");
      if (splitOffsetsSchema != null && splitOffsetsSchema.getType() != Schema.Type.ARRAY) {
        throw source.bad("its split_offsets field is not an array");
      }
      checkBoundsSchema(source, dataFile, "lower_bounds");
      checkBoundsSchema(source, dataFile, "upper_bounds");
      return new Columns(
          status,
          AvroFields.position(entry, "data_file"),
          AvroFields.position(dataFile, "content"),
          filePath,
          AvroFields.position(dataFile, "file_format"),
          fileSize,
          AvroFields.position(dataFile, "referenced_data_file"),
          AvroFields.position(dataFile, "split_offsets"),
          splitOffsetsSchema,
          AvroFields.position(dataFile, "lower_bounds"),
          AvroFields.position(dataFile, "upper_bounds"));
    }

    /** Bounds maps with int keys are Avro arrays of {key: int, value: bytes} records. */
    private static void checkBoundsSchema(AvroContainer source, Schema dataFile, String name) {
      Schema bounds = AvroFields.nonNullSchema(dataFile, name);
      if (bounds == null) {
        return;
      }
      Schema element = bounds.getType() == Schema.Type.ARRAY ? bounds.getElementType() : null;
      if (element == null
          || element.getType() != Schema.Type.RECORD
          || element.getField("key") == null
          || element.getField("value") == null
          || AvroFields.nonNull(element.getField("value").schema()).getType()
              != Schema.Type.BYTES) {
        throw source.bad("its " + name + " field is not an array of {key, value: bytes} records");
      }
    }

    int status(GenericRecord entry, AvroContainer source) {
      Number value = AvroFields.number(entry, status);
      if (value == null) {
        throw source.bad("status is missing in entry " + source.recordsRead());
      }
      return value.intValue();
    }

    GenericRecord dataFile(GenericRecord entry, AvroContainer source) {
      Object value = AvroFields.get(entry, dataFile);
      if (!(value instanceof GenericRecord record)) {
        throw source.bad("data_file is missing in entry " + source.recordsRead());
      }
      return record;
    }

    String filePath(GenericRecord dataFile, AvroContainer source) {
      String path = AvroFields.string(dataFile, filePath);
      if (path == null) {
        throw source.bad("data_file.file_path is missing in entry " + source.recordsRead());
      }
      return path;
    }

    long fileSize(GenericRecord dataFile, AvroContainer source) {
      Number value = AvroFields.number(dataFile, fileSize);
      if (value == null) {
        throw source.bad(
            "data_file.file_size_in_bytes is missing in entry " + source.recordsRead());
      }
      return value.longValue();
    }

    int content(GenericRecord dataFile) {
      Number value = AvroFields.number(dataFile, content);
      return value == null ? 0 : value.intValue();
    }

    GenericData.Array<Long> splitOffsetsArray(RewrittenFile rewritten) {
      List<Long> offsets = rewritten.splitOffsets();
      if (offsets == null) {
        return null;
      }
      GenericData.Array<Long> array = new GenericData.Array<>(offsets.size(), splitOffsetsSchema);
      array.addAll(offsets);
      return array;
    }

    /**
     * Maps the bounds of the position-delete file_path column. Equal bounds name the one data file
     * the delete file applies to (readers pair them by that), so they are mapped and must map.
     * Differing bounds are a range, and mapping each end on its own can invert it when two source
     * prefixes meet in one replica folder: a reader that range-checks bounds would then skip the
     * delete file and deleted rows come back. They are removed, as Iceberg's own path rewrite does;
     * without them readers consider the delete file for every data file of its partition.
     */
    void mapDeletedPathBounds(
        GenericRecord dataFile, AvroContainer source, Function<String, String> mapPath) {
      List<GenericRecord> lower = bounds(dataFile, lowerBounds);
      List<GenericRecord> upper = bounds(dataFile, upperBounds);
      int lowerIndex = indexOf(lower);
      int upperIndex = indexOf(upper);
      if (lowerIndex < 0 && upperIndex < 0) {
        return;
      }
      ByteBuffer lowerValue = lowerIndex < 0 ? null : value(lower.get(lowerIndex));
      ByteBuffer upperValue = upperIndex < 0 ? null : value(upper.get(upperIndex));
      if (lowerValue != null && lowerValue.equals(upperValue)) {
        String path = utf8(lowerValue);
        if (path == null) {
          throw source.bad(
              "the file_path bounds of delete file "
                  + AvroFields.string(dataFile, filePath)
                  + " are not UTF-8");
        }
        ByteBuffer mapped = ByteBuffer.wrap(mapPath.apply(path).getBytes(StandardCharsets.UTF_8));
        lower.get(lowerIndex).put("value", mapped);
        upper.get(upperIndex).put("value", mapped.duplicate());
        return;
      }
      if (lowerIndex >= 0) {
        lower.remove(lowerIndex);
      }
      if (upperIndex >= 0) {
        upper.remove(upperIndex);
      }
    }

    /** The path equal file_path bounds of a position delete file name, else null. */
    String deletedPathBound(GenericRecord dataFile) {
      List<GenericRecord> lower = bounds(dataFile, lowerBounds);
      List<GenericRecord> upper = bounds(dataFile, upperBounds);
      int lowerIndex = indexOf(lower);
      int upperIndex = indexOf(upper);
      if (lowerIndex < 0 || upperIndex < 0) {
        return null;
      }
      ByteBuffer value = value(lower.get(lowerIndex));
      return value.equals(value(upper.get(upperIndex))) ? utf8(value) : null;
    }

    @SuppressWarnings("unchecked")
    private static List<GenericRecord> bounds(GenericRecord dataFile, int position) {
      Object value = AvroFields.get(dataFile, position);
      return value instanceof List<?> list ? (List<GenericRecord>) list : null;
    }

    private static int indexOf(List<GenericRecord> bounds) {
      if (bounds == null) {
        return -1;
      }
      for (int i = 0; i < bounds.size(); i++) {
        Object key = bounds.get(i).get("key");
        if (key instanceof Number n && n.intValue() == DELETE_FILE_PATH_FIELD_ID) {
          return value(bounds.get(i)) == null ? -1 : i;
        }
      }
      return -1;
    }

    private static ByteBuffer value(GenericRecord pair) {
      Object value = pair.get("value");
      return value instanceof ByteBuffer buffer ? buffer : null;
    }

    private static String utf8(ByteBuffer value) {
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(value.duplicate())
            .toString();
      } catch (CharacterCodingException e) {
        return null;
      }
    }
  }
}
