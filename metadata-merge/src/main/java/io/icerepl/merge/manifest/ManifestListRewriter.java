package io.icerepl.merge.manifest;

import io.icerepl.merge.error.UnsupportedFeatureException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Reads and rewrites Iceberg manifest lists (snap-*.avro) of any format version, field by field
 * with the file's own Avro writer schema.
 */
public final class ManifestListRewriter {

  private ManifestListRewriter() {}

  /**
   * The manifests a manifest list names, in file order. The input stream is read to its end but not
   * closed.
   *
   * @throws BadInputException when the input is not a readable manifest list
   * @throws UnsupportedFeatureException when a manifest is encrypted (has key_metadata)
   */
  public static List<ManifestListEntry> read(InputStream manifestList, String fileName) {
    List<ManifestListEntry> entries = new ArrayList<>();
    try (AvroContainer source = AvroContainer.open(manifestList, noun(fileName))) {
      Columns columns = Columns.of(source);
      GenericRecord row;
      while ((row = source.next()) != null) {
        String path = columns.checkedPath(row, source, fileName);
        entries.add(
            new ManifestListEntry(
                path, columns.length(row, source), columns.content(row), columns.snapshotId(row)));
      }
    }
    return entries;
  }

  /**
   * Streams a manifest list into a new one: manifest_path mapped with {@code mapPath};
   * manifest_length replaced by {@code replicaManifestLength.applyAsLong(<source manifest_path>)};
   * every other field, the Avro schema (with its field-id properties), the Avro file metadata and
   * the codec kept. Neither stream is closed.
   *
   * @throws BadInputException when the input is not a readable manifest list
   * @throws UnsupportedFeatureException when a manifest is encrypted (has key_metadata)
   * @throws java.io.UncheckedIOException when writing to {@code out} fails
   */
  public static void rewrite(
      InputStream in,
      OutputStream out,
      String fileName,
      Function<String, String> mapPath,
      ToLongFunction<String> replicaManifestLength) {
    Objects.requireNonNull(mapPath, "mapPath");
    Objects.requireNonNull(replicaManifestLength, "replicaManifestLength");
    try (AvroContainer source = AvroContainer.open(in, noun(fileName))) {
      Columns columns = Columns.of(source);
      DataFileWriter<GenericRecord> writer = source.newWriter(out);
      GenericRecord row;
      while ((row = source.next()) != null) {
        String path = columns.checkedPath(row, source, fileName);
        columns.length(row, source); // present and a number, even though it is replaced
        row.put(columns.path, mapPath.apply(path));
        row.put(columns.length, replicaManifestLength.applyAsLong(path));
        source.append(writer, row);
      }
      source.finish(writer);
    }
  }

  private static String noun(String fileName) {
    return "manifest list " + fileName;
  }

  /** Positions of the columns this class reads; {@link AvroFields#ABSENT} when missing. */
  private record Columns(int path, int length, int content, int snapshotId, int keyMetadata) {

    static Columns of(AvroContainer source) {
      Schema schema = source.schema();
      if (schema.getType() != Schema.Type.RECORD) {
        throw source.bad("its Avro schema is a " + schema.getType() + ", not a record");
      }
      Columns columns =
          new Columns(
              AvroFields.position(schema, "manifest_path"),
              AvroFields.position(schema, "manifest_length"),
              AvroFields.position(schema, "content"),
              AvroFields.position(schema, "added_snapshot_id"),
              AvroFields.position(schema, "key_metadata"));
      if (columns.path == AvroFields.ABSENT) {
        throw source.bad("it has no manifest_path field");
      }
      if (columns.length == AvroFields.ABSENT) {
        throw source.bad("it has no manifest_length field");
      }
      return columns;
    }

    String checkedPath(GenericRecord row, AvroContainer source, String fileName) {
      String path = AvroFields.string(row, this.path);
      if (path == null) {
        throw source.bad("manifest_path is missing in row " + source.recordsRead());
      }
      if (AvroFields.get(row, keyMetadata) != null) {
        throw new UnsupportedFeatureException(
            "Cannot replicate manifest list "
                + fileName
                + ": encrypted manifests are not supported (manifest "
                + path
                + " has key_metadata)");
      }
      return path;
    }

    long length(GenericRecord row, AvroContainer source) {
      Number value = AvroFields.number(row, length);
      if (value == null) {
        throw source.bad("manifest_length is missing in row " + source.recordsRead());
      }
      return value.longValue();
    }

    int content(GenericRecord row) {
      Number value = AvroFields.number(row, content);
      return value == null ? 0 : value.intValue();
    }

    long snapshotId(GenericRecord row) {
      Number value = AvroFields.number(row, snapshotId);
      return value == null ? -1L : value.longValue();
    }
  }
}
