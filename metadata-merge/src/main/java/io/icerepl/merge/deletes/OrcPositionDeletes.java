package io.icerepl.merge.deletes;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.io.DecodeBounds;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.RewrittenFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.orc.OrcFile;
import org.apache.orc.OrcProto;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;
import org.apache.orc.Writer;
import org.apache.orc.impl.MemoryManagerImpl;
import org.apache.orc.impl.PhysicalFsWriter;
import org.apache.orc.impl.writer.WriterEncryptionVariant;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.util.StreamWrapperFileSystem;

/**
 * ORC position deletes: read batch by batch and written again with the source's schema (type
 * attributes such as iceberg.id included), file version, compression, compression block size, row
 * index stride and user metadata. The writer recomputes every column statistic, so file_path's
 * min/max in the stripe and file footers and in the row indexes describe the mapped paths.
 */
final class OrcPositionDeletes {
  /** Where Iceberg keeps a column's field id in an ORC type. */
  private static final String ICEBERG_ID = "iceberg.id";

  private OrcPositionDeletes() {}

  static RewrittenFile rewrite(
      SeekableInput in, OutputStream out, String fileName, Function<String, String> mapPath)
      throws IOException {
    return rewrite(in, out, fileName, mapPath, OrcDecodeGuard.deadline(in.length()));
  }

  /** As above, the decoding given up after {@code deadline} (see {@link OrcDecodeGuard}). */
  static RewrittenFile rewrite(
      SeekableInput in,
      OutputStream out,
      String fileName,
      Function<String, String> mapPath,
      Duration deadline)
      throws IOException {
    return OrcDecodeGuard.within(fileName, deadline, () -> decode(in, out, fileName, mapPath));
  }

  private static RewrittenFile decode(
      SeekableInput in, OutputStream out, String fileName, Function<String, String> mapPath)
      throws IOException {
    CountingOutput counting = new CountingOutput(out);
    try (FileSystem source = fileSystem(in, fileName);
        Reader reader = open(source, in, fileName)) {
      TypeDescription schema = reader.getSchema();
      int pathColumn = filePathColumn(schema, fileName);
      Configuration conf = new Configuration(false);
      OrcFile.WriterOptions options =
          OrcFile.writerOptions(conf)
              .fileSystem(source)
              .setSchema(schema)
              .version(reader.getFileVersion())
              .compress(reader.getCompressionKind())
              .bufferSize(reader.getCompressionSize())
              .enforceBufferSize()
              .rowIndexStride(reader.getRowIndexStride())
              .buildIndex(reader.getRowIndexStride() > 0)
              // Iceberg reads and writes ORC timestamps in UTC; the same here copies them as they
              // are
              .useUTCTimestamp(true)
              .memory(new MemoryManagerImpl(conf));
      options.physicalWriter(
          new PhysicalFsWriter(
              new FSDataOutputStream(counting, null), options, new WriterEncryptionVariant[0]));
      Writer writer = OrcFile.createWriter(new Path(fileName), options);
      for (String key : reader.getMetadataKeys()) {
        writer.addUserMetadata(key, reader.getMetadataValue(key));
      }
      VectorizedRowBatch batch = schema.createRowBatch();
      PathCache paths = new PathCache(mapPath);
      try (RecordReader rows = reader.rows(reader.options())) {
        while (rows.nextBatch(batch)) {
          mapPaths((BytesColumnVector) batch.cols[pathColumn], batch.size, paths, fileName);
          writer.addRowBatch(batch);
        }
      }
      writer.close();
      return new RewrittenFile(counting.count(), stripeOffsets(writer.getStripes()));
    } catch (IOException | RuntimeException e) {
      throw PositionDeleteRewriter.failure(e, counting, fileName);
    }
  }

  static RewrittenFile describe(SeekableInput replicaFile, String fileName) throws IOException {
    try (FileSystem replica = fileSystem(replicaFile, fileName);
        Reader reader = open(replica, replicaFile, fileName)) {
      filePathColumn(reader.getSchema(), fileName);
      return new RewrittenFile(replicaFile.length(), stripeOffsets(reader.getStripes()));
    }
  }

  /** A Hadoop FileSystem holding this one file only, which is how ORC's reader takes its bytes. */
  private static FileSystem fileSystem(SeekableInput in, String fileName) throws IOException {
    return new StreamWrapperFileSystem(
        new FSDataInputStream(new HadoopSeekableStream(in)),
        new Path(fileName),
        in.length(),
        new Configuration(false));
  }

  /**
   * Checks what the file's postscript claims before ORC's reader allocates it: the footer and
   * metadata it reads from the tail, and the buffer of the compression block size it allocates for
   * every stream it decompresses.
   */
  private static void checkPostScript(SeekableInput in, String fileName) throws IOException {
    long length = in.length();
    if (length < 4) {
      return; // no ORC file at all: the reader says so
    }
    byte[] last = new byte[1];
    in.readFully(length - 1, last, 0, 1);
    int postScriptLength = last[0] & 0xff;
    if (postScriptLength == 0 || postScriptLength >= length) {
      return; // the reader says what is wrong
    }
    byte[] bytes = new byte[postScriptLength];
    in.readFully(length - 1 - postScriptLength, bytes, 0, postScriptLength);
    OrcProto.PostScript postScript;
    try {
      postScript = OrcProto.PostScript.parseFrom(bytes);
    } catch (IOException e) {
      return; // not a postscript: the reader says so
    }
    if (postScript.hasCompression()
        && postScript.getCompression() != OrcProto.CompressionKind.NONE) {
      DecodeBounds.checkClaim(
          "the ORC compression block size of " + fileName,
          postScript.getCompressionBlockSize(),
          DecodeBounds.ORC_COMPRESSION_BLOCK_BYTES);
    }
    long tail = 1 + postScriptLength;
    DecodeBounds.checkInside(
        "the ORC footer and metadata of " + fileName,
        length - tail - postScript.getFooterLength() - postScript.getMetadataLength(),
        postScript.getFooterLength() + postScript.getMetadataLength(),
        length - tail);
  }

  /** Every stripe the footer lists must lie in the file: ORC reads each as large as claimed. */
  private static void checkStripes(Reader reader, long length, String fileName) throws IOException {
    List<StripeInformation> stripes = reader.getStripes();
    for (int i = 0; i < stripes.size(); i++) {
      StripeInformation stripe = stripes.get(i);
      DecodeBounds.checkInside(
          "stripe " + i + " of " + fileName, stripe.getOffset(), stripe.getLength(), length);
    }
  }

  private static Reader open(FileSystem fs, SeekableInput in, String fileName) throws IOException {
    checkPostScript(in, fileName);
    Reader reader =
        OrcFile.createReader(
            new Path(fileName),
            OrcFile.readerOptions(fs.getConf()).filesystem(fs).useUTCTimestamp(true));
    try {
      checkStripes(reader, in.length(), fileName);
    } catch (IOException e) {
      reader.close();
      throw e;
    }
    if (reader.getColumnEncryptionKeys().length > 0) {
      reader.close();
      throw new UnsupportedFeatureException(
          "Cannot rewrite position delete file "
              + fileName
              + ": it is an ORC file with encrypted columns, which is not supported");
    }
    return reader;
  }

  /** Stripe starting positions, as Iceberg records them in a manifest's split_offsets. */
  private static List<Long> stripeOffsets(List<StripeInformation> stripes) {
    List<Long> offsets = new ArrayList<>();
    for (StripeInformation stripe : stripes) {
      offsets.add(stripe.getOffset());
    }
    offsets.sort(null);
    return offsets;
  }

  private static int filePathColumn(TypeDescription schema, String fileName) {
    if (schema.getCategory() != TypeDescription.Category.STRUCT) {
      throw new BadInputException(
          "Cannot read position delete file " + fileName + ": its ORC schema is not a struct");
    }
    List<TypeDescription> fields = schema.getChildren();
    String id = Integer.toString(PositionDeleteRewriter.FILE_PATH_ID);
    for (int i = 0; i < fields.size(); i++) {
      if (id.equals(fields.get(i).getAttributeValue(ICEBERG_ID))) {
        return checkString(fields.get(i), fileName, i);
      }
    }
    // Without field ids, fall back on the name the spec gives the column.
    List<String> names = schema.getFieldNames();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getAttributeValue(ICEBERG_ID) == null
          && names.get(i).equals(PositionDeleteRewriter.FILE_PATH_NAME)) {
        return checkString(fields.get(i), fileName, i);
      }
    }
    throw new BadInputException(
        "Cannot read position delete file "
            + fileName
            + ": it has no file_path column (field id "
            + PositionDeleteRewriter.FILE_PATH_ID
            + ")");
  }

  private static int checkString(TypeDescription field, String fileName, int index) {
    if (field.getCategory() != TypeDescription.Category.STRING) {
      throw new BadInputException(
          "Cannot read position delete file " + fileName + ": file_path column is " + field);
    }
    return index;
  }

  /**
   * Replaces the paths of one batch. The vector then points at the cached mapped bytes, which
   * outlive the batch; a repeating vector holds its one value at index 0.
   */
  private static void mapPaths(
      BytesColumnVector paths, int size, PathCache cache, String fileName) {
    int rows = paths.isRepeating ? Math.min(size, 1) : size;
    for (int i = 0; i < rows; i++) {
      if (!paths.noNulls && paths.isNull[i]) {
        throw new BadInputException(
            "Cannot read position delete file " + fileName + ": a row has no file_path");
      }
      String path =
          new String(paths.vector[i], paths.start[i], paths.length[i], StandardCharsets.UTF_8);
      byte[] mapped = cache.map(path);
      paths.setRef(i, mapped, 0, mapped.length);
    }
  }

  /**
   * Position deletes are sorted by file_path: most rows repeat the previous path, so the last
   * mapping is remembered (a new array per distinct path, as the vectors point at them).
   */
  private static final class PathCache {
    private final Function<String, String> mapPath;
    private String lastPath;
    private byte[] lastMapped;

    PathCache(Function<String, String> mapPath) {
      this.mapPath = mapPath;
    }

    byte[] map(String path) {
      if (!path.equals(lastPath)) {
        lastMapped = mapPath.apply(path).getBytes(StandardCharsets.UTF_8);
        lastPath = path;
      }
      return lastMapped;
    }
  }
}
