package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;

/**
 * Reads and writes table metadata JSON losslessly, validating the fields the spec requires for the
 * file's format version. Reading is streamed from the input, with a size limit that also applies to
 * the decompressed bytes of gzip metadata.
 */
public final class TableMetadataParser {
  /**
   * Default size limit of one metadata file, decompressed: 256 MiB. The parsed tree takes several
   * times its text in heap, so the limit stays well below the service's heap: a small gzip file
   * that inflates past it fails its table instead of the JVM.
   */
  public static final long DEFAULT_MAX_METADATA_BYTES = 256L * 1024 * 1024;

  /**
   * Longest string value read: 64 MiB. Metadata strings are paths and JSON-encoded values (schemas,
   * statistics), far below it; a longer one is hostile input.
   */
  public static final int MAX_STRING_LENGTH = 64 * 1024 * 1024;

  private static final ObjectMapper MAPPER = newMapper();
  private static final int MIN_FORMAT_VERSION = 1;
  private static final int MAX_FORMAT_VERSION = 3;

  private TableMetadataParser() {}

  private static ObjectMapper newMapper() {
    ObjectMapper mapper = new ObjectMapper();
    // Big tables have big metadata: lift Jackson's default document limit, ours applies instead.
    mapper
        .getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder()
                .maxStringLength(MAX_STRING_LENGTH)
                .maxDocumentLength(-1)
                .maxNestingDepth(1000)
                .build());
    mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    return mapper;
  }

  /** Parses metadata from a stream; gzip is detected from its magic bytes. */
  public static TableMetadata read(InputStream input, String fileName, long maxBytes) {
    try (InputStream limited = new LimitedInputStream(decompress(input), maxBytes, fileName)) {
      JsonNode node = MAPPER.readTree(limited);
      return validate(node, fileName);
    } catch (StreamConstraintsException e) {
      throw new BadInputException(
          "Cannot read table metadata "
              + fileName
              + ": over the parser's limits: "
              + e.getOriginalMessage(),
          e);
    } catch (JsonProcessingException e) {
      throw new BadInputException(
          "Cannot read table metadata " + fileName + ": malformed JSON: " + e.getOriginalMessage(),
          e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read table metadata " + fileName, e);
    }
  }

  public static TableMetadata read(byte[] bytes, String fileName) {
    return read(new java.io.ByteArrayInputStream(bytes), fileName, DEFAULT_MAX_METADATA_BYTES);
  }

  /** Wraps JSON built by the merge, validating it as any read metadata. */
  public static TableMetadata fromJson(ObjectNode json, String description) {
    return validate(json, description);
  }

  public static byte[] toJson(TableMetadata metadata) {
    try {
      return MAPPER.writeValueAsBytes(metadata.json());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write table metadata: " + e.getMessage(), e);
    }
  }

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  private static InputStream decompress(InputStream input) throws IOException {
    BufferedInputStream buffered = new BufferedInputStream(input, 64 * 1024);
    buffered.mark(2);
    int b1 = buffered.read();
    int b2 = buffered.read();
    buffered.reset();
    if (b1 == 0x1f && b2 == 0x8b) {
      return new GZIPInputStream(buffered, 64 * 1024);
    }
    return buffered;
  }

  private static TableMetadata validate(JsonNode node, String fileName) {
    if (node == null || !node.isObject()) {
      throw new BadInputException("Cannot read table metadata " + fileName + ": not a JSON object");
    }
    ObjectNode json = (ObjectNode) node;
    Validator v = new Validator(fileName, json);
    JsonNode version = v.required(json, FORMAT_VERSION, "");
    if (!version.canConvertToInt()
        || version.asInt() < MIN_FORMAT_VERSION
        || version.asInt() > MAX_FORMAT_VERSION) {
      throw new BadInputException(
          "Cannot read table metadata "
              + fileName
              + ": unsupported format-version "
              + version
              + " (supported: 1, 2, 3)");
    }
    int formatVersion = version.asInt();
    v.requiredText(json, LOCATION, "");
    v.required(json, LAST_UPDATED_MS, "");
    v.required(json, LAST_COLUMN_ID, "");
    if (formatVersion >= 2) {
      v.requiredText(json, TABLE_UUID, "");
      v.required(json, LAST_SEQUENCE_NUMBER, "");
      v.requiredArray(json, SCHEMAS, "");
      v.required(json, CURRENT_SCHEMA_ID, "");
      v.requiredArray(json, PARTITION_SPECS, "");
      v.required(json, DEFAULT_SPEC_ID, "");
      v.required(json, LAST_PARTITION_ID, "");
      v.requiredArray(json, SORT_ORDERS, "");
      v.required(json, DEFAULT_SORT_ORDER_ID, "");
    } else {
      if (!json.has(SCHEMA) && !json.has(SCHEMAS)) {
        v.required(json, SCHEMA, "");
      }
      if (!json.has(PARTITION_SPEC) && !json.has(PARTITION_SPECS)) {
        v.required(json, PARTITION_SPEC, "");
      }
    }
    if (formatVersion >= 3) {
      v.required(json, NEXT_ROW_ID, "");
    }
    for (JsonNode schema : iterable(json, SCHEMAS)) {
      v.required(schema, SCHEMA_ID, " in a schema");
    }
    for (JsonNode spec : iterable(json, PARTITION_SPECS)) {
      v.required(spec, SPEC_ID, " in a partition spec");
    }
    for (JsonNode order : iterable(json, SORT_ORDERS)) {
      v.required(order, ORDER_ID, " in a sort order");
    }
    for (JsonNode snapshot : iterable(json, SNAPSHOTS)) {
      JsonNode id = v.required(snapshot, SNAPSHOT_ID, " in a snapshot");
      String where = " in snapshot " + id.asText();
      v.required(snapshot, TIMESTAMP_MS, where);
      // Not required even in v2 and v3 (spec, Appendix E): a snapshot kept from before an upgrade
      // from v1 has no sequence-number (0, which Iceberg omits), and may have no summary and
      // embedded manifests instead of a manifest list.
      JsonNode manifestList = snapshot.get(MANIFEST_LIST);
      if ((manifestList != null && !manifestList.isNull()) || !snapshot.has(MANIFESTS)) {
        v.requiredText(snapshot, MANIFEST_LIST, where);
      }
    }
    for (JsonNode entry : iterable(json, SNAPSHOT_LOG)) {
      v.required(entry, TIMESTAMP_MS, " in a snapshot-log entry");
      v.required(entry, SNAPSHOT_ID, " in a snapshot-log entry");
    }
    for (JsonNode entry : iterable(json, METADATA_LOG)) {
      v.required(entry, TIMESTAMP_MS, " in a metadata-log entry");
      v.requiredText(entry, METADATA_FILE, " in a metadata-log entry");
    }
    JsonNode refs = json.get(REFS);
    if (refs != null && refs.isObject()) {
      refs.fields()
          .forEachRemaining(
              e -> {
                v.required(e.getValue(), SNAPSHOT_ID, " in ref '" + e.getKey() + "'");
                v.requiredText(e.getValue(), REF_TYPE, " in ref '" + e.getKey() + "'");
              });
    }
    for (String field : new String[] {STATISTICS, PARTITION_STATISTICS}) {
      for (JsonNode entry : iterable(json, field)) {
        v.required(entry, SNAPSHOT_ID, " in a " + field + " entry");
        v.requiredText(entry, STATISTICS_PATH, " in a " + field + " entry");
      }
    }
    return new TableMetadata(json);
  }

  private static Iterable<JsonNode> iterable(JsonNode json, String field) {
    JsonNode node = json.get(field);
    return node != null && node.isArray() ? node : java.util.List.of();
  }

  /** Checks required fields and names the first one missing. */
  private record Validator(String fileName, ObjectNode root) {
    JsonNode required(JsonNode object, String field, String where) {
      JsonNode value = object.get(field);
      if (value == null || value.isNull()) {
        throw new BadInputException(
            "Cannot read table metadata "
                + fileName
                + ": missing required field '"
                + field
                + "'"
                + where);
      }
      return value;
    }

    JsonNode requiredText(JsonNode object, String field, String where) {
      JsonNode value = required(object, field, where);
      if (!value.isTextual()) {
        throw new BadInputException(
            "Cannot read table metadata "
                + fileName
                + ": field '"
                + field
                + "'"
                + where
                + " must be a string");
      }
      return value;
    }

    JsonNode requiredArray(JsonNode object, String field, String where) {
      JsonNode value = required(object, field, where);
      if (!value.isArray()) {
        throw new BadInputException(
            "Cannot read table metadata "
                + fileName
                + ": field '"
                + field
                + "'"
                + where
                + " must be an array");
      }
      return value;
    }
  }

  /** Fails once more than the configured number of (decompressed) bytes was read. */
  private static final class LimitedInputStream extends java.io.FilterInputStream {
    private final long maxBytes;
    private final String fileName;
    private long count;

    LimitedInputStream(InputStream in, long maxBytes, String fileName) {
      super(in);
      this.maxBytes = maxBytes;
      this.fileName = fileName;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(long n) {
      count += n;
      if (count > maxBytes) {
        throw new BadInputException(
            "Cannot read table metadata "
                + fileName
                + ": larger than the configured limit of "
                + maxBytes
                + " bytes");
      }
    }
  }
}
