package io.icerepl.merge.deletes;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.ReplicationException;
import io.icerepl.merge.io.DecodeBounds;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.RewrittenFile;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Rewrites Iceberg position delete files for a replica: every file_path is mapped to the replica
 * location, everything else (positions, the optional row, schema with field ids, key-value
 * metadata, codec, row order) is kept.
 *
 * <p>Pure: bytes come in through {@link SeekableInput} and go out through the caller's {@link
 * OutputStream}, which is flushed but never closed. When an exception is thrown the output holds an
 * incomplete file and must be discarded.
 */
public final class PositionDeleteRewriter {
  /** Field id of file_path in the position delete schema (Iceberg spec, reserved ids). */
  static final int FILE_PATH_ID = 2147483546;

  static final String FILE_PATH_NAME = "file_path";

  private PositionDeleteRewriter() {}

  /**
   * Rewrites a position delete file (fileFormat "PARQUET", "AVRO" or "ORC", case-insensitive, as in
   * the manifest's file_format) into out, mapping every file_path with mapPath.
   *
   * @return the new length and the new split offsets: Parquet row-group or ORC stripe starts (Avro:
   *     null)
   * @throws UnsupportedFeatureException for encrypted Parquet or ORC files
   * @throws BadInputException when the input is truncated, corrupted or not a position delete file
   * @throws io.icerepl.merge.error.PathOutsideMappingException from mapPath, unchanged
   * @throws UncheckedIOException when out fails
   */
  public static RewrittenFile rewrite(
      String fileFormat,
      SeekableInput in,
      OutputStream out,
      String fileName,
      Function<String, String> mapPath) {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(mapPath, "mapPath");
    Format format = format(fileFormat, fileName);
    try {
      return switch (format) {
        case PARQUET -> ParquetPositionDeletes.rewrite(in, out, fileName, mapPath);
        case AVRO -> AvroPositionDeletes.rewrite(in, out, fileName, mapPath);
        case ORC -> OrcPositionDeletes.rewrite(in, out, fileName, mapPath);
      };
    } catch (IOException e) {
      // the format helpers translate their own failures; this is only a safety net
      throw new BadInputException(readFailure(fileName, e), e);
    }
  }

  /**
   * Hands every row's file_path to {@code paths}, in the file's order, reading the file as {@link
   * #rewrite} does (row group by row group, stripe by stripe, block by block) and discarding what
   * it writes: what verification reads is exactly what the rewrite read.
   *
   * @throws BadInputException when the file is truncated, corrupted or not a position delete file
   */
  public static void forEachFilePath(
      String fileFormat, SeekableInput in, String fileName, Consumer<String> paths) {
    Objects.requireNonNull(paths, "paths");
    rewrite(
        fileFormat,
        in,
        OutputStream.nullOutputStream(),
        fileName,
        path -> {
          paths.accept(path);
          return path;
        });
  }

  /** The length and split offsets of a position delete file already rewritten earlier. */
  public static RewrittenFile describe(
      String fileFormat, SeekableInput replicaFile, String fileName) {
    Objects.requireNonNull(replicaFile, "replicaFile");
    Format format = format(fileFormat, fileName);
    try {
      return switch (format) {
        case PARQUET -> ParquetPositionDeletes.describe(replicaFile, fileName);
        case AVRO -> AvroPositionDeletes.describe(replicaFile, fileName);
        case ORC -> OrcPositionDeletes.describe(replicaFile, fileName);
      };
    } catch (ReplicationException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new BadInputException(readFailure(fileName, e), e);
    }
  }

  private enum Format {
    PARQUET,
    AVRO,
    ORC
  }

  private static Format format(String fileFormat, String fileName) {
    String upper = fileFormat == null ? "" : fileFormat.toUpperCase(Locale.ROOT);
    return switch (upper) {
      case "PARQUET" -> Format.PARQUET;
      case "AVRO" -> Format.AVRO;
      case "ORC" -> Format.ORC;
      default ->
          throw new BadInputException(
              "Cannot rewrite position delete file "
                  + fileName
                  + ": unknown file format '"
                  + fileFormat
                  + "'");
    };
  }

  /**
   * What a failure while rewriting means: our own errors (including mapPath's) pass unchanged, a
   * failure of the caller's output stream is an UncheckedIOException, anything else is bad input.
   */
  static RuntimeException failure(Exception e, CountingOutput counting, String fileName) {
    if (e instanceof ReplicationException replication) {
      return replication;
    }
    if (counting.writeFailure() != null) {
      return new UncheckedIOException(
          "Cannot write rewritten position delete file " + fileName, counting.writeFailure());
    }
    return new BadInputException(readFailure(fileName, e), e);
  }

  /** A bound the file exceeded is the reason, however deep the format's reader wrapped it. */
  private static String readFailure(String fileName, Exception e) {
    Throwable reason = DecodeBounds.exceeded(e).map(Throwable.class::cast).orElse(e);
    return "Cannot read position delete file " + fileName + ": " + reason(reason);
  }

  /** A failure's message for an error, or its type when it has none. */
  public static String reason(Throwable e) {
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
  }
}
