package io.icerepl.merge.puffin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.deletes.CountingOutput;
import io.icerepl.merge.deletes.PositionDeleteRewriter;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.SeekableInput;
import io.icerepl.merge.manifest.RewrittenFile;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Rewrites a v3 deletion-vector Puffin file for a replica. Everything before the footer (magic and
 * blobs) is copied byte for byte, so the content_offset and content_size_in_bytes recorded in
 * manifests stay valid; the new footer differs only in each blob's "referenced-data-file" property,
 * mapped to the replica location, and is compressed when the source's was (same flags).
 *
 * <p>Pure: the caller's OutputStream is flushed but never closed. When an exception is thrown the
 * output holds an incomplete file and must be discarded.
 */
public final class DeletionVectorRewriter {
  static final String REFERENCED_DATA_FILE = "referenced-data-file";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int COPY_CHUNK = 64 * 1024;

  private DeletionVectorRewriter() {}

  /**
   * Rewrites the Puffin file in into out.
   *
   * @return the new length; splitOffsets null
   * @throws BadInputException when the input is truncated or corrupted
   * @throws UnsupportedFeatureException when the footer uses flags the spec does not define
   * @throws io.icerepl.merge.error.PathOutsideMappingException from mapPath, unchanged
   * @throws UncheckedIOException when out fails
   */
  public static RewrittenFile rewrite(
      SeekableInput in, OutputStream out, String fileName, Function<String, String> mapPath) {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(mapPath, "mapPath");
    PuffinFooter footer = PuffinFooter.read(in, fileName);

    ObjectNode metadata = footer.metadata().deepCopy();
    for (JsonNode blob : metadata.get("blobs")) {
      JsonNode properties = blob.get("properties");
      if (properties instanceof ObjectNode props && props.has(REFERENCED_DATA_FILE)) {
        JsonNode path = props.get(REFERENCED_DATA_FILE);
        if (!path.isTextual()) {
          throw new BadInputException(
              "Cannot read deletion vector file "
                  + fileName
                  + ": blob property "
                  + REFERENCED_DATA_FILE
                  + " is not a string");
        }
        props.put(REFERENCED_DATA_FILE, mapPath.apply(path.textValue()));
      }
    }
    byte[] payload;
    try {
      payload = MAPPER.writeValueAsBytes(metadata);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialize Puffin footer of " + fileName, e);
    }

    CountingOutput counting = new CountingOutput(out);
    byte[] buffer = new byte[(int) Math.min(COPY_CHUNK, Math.max(1, footer.footerStart()))];
    long position = 0;
    while (position < footer.footerStart()) {
      int step = (int) Math.min(buffer.length, footer.footerStart() - position);
      try {
        in.readFully(position, buffer, 0, step);
      } catch (IOException e) {
        throw new BadInputException(
            "Cannot read deletion vector file "
                + fileName
                + ": "
                + PositionDeleteRewriter.reason(e),
            e);
      }
      write(counting, buffer, 0, step, fileName);
      position += step;
    }
    byte[] tail = footer.footerBytes(payload);
    write(counting, tail, 0, tail.length, fileName);
    try {
      counting.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write rewritten deletion vector file " + fileName, e);
    }
    return new RewrittenFile(counting.count(), null);
  }

  /**
   * The "referenced-data-file" property of every blob that has one, in the footer's order; only the
   * footer is read.
   *
   * @throws BadInputException when the footer is truncated or corrupted, or a property is not a
   *     string
   */
  public static List<String> referencedDataFiles(SeekableInput in, String fileName) {
    Objects.requireNonNull(in, "in");
    List<String> paths = new ArrayList<>();
    for (JsonNode blob : PuffinFooter.read(in, fileName).metadata().get("blobs")) {
      JsonNode path = blob.path("properties").get(REFERENCED_DATA_FILE);
      if (path == null) {
        continue;
      }
      if (!path.isTextual()) {
        throw new BadInputException(
            "Cannot read deletion vector file "
                + fileName
                + ": blob property "
                + REFERENCED_DATA_FILE
                + " is not a string");
      }
      paths.add(path.textValue());
    }
    return paths;
  }

  /** Length of an already rewritten file, after checking that its footer can be read. */
  public static RewrittenFile describe(SeekableInput replicaFile, String fileName) {
    Objects.requireNonNull(replicaFile, "replicaFile");
    PuffinFooter footer = PuffinFooter.read(replicaFile, fileName);
    return new RewrittenFile(footer.fileLength(), null);
  }

  private static void write(
      CountingOutput out, byte[] bytes, int offset, int length, String fileName) {
    try {
      out.write(bytes, offset, length);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write rewritten deletion vector file " + fileName, e);
    }
  }
}
