package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.model.TableMetadata.LogEntry;
import io.icerepl.merge.model.TableMetadata.SnapshotLogEntry;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Reads and writes table metadata JSON losslessly, validating the fields the spec requires for the
 * file's format version. Reading is streamed from the input, with a size limit that also applies to
 * the decompressed bytes of gzip metadata.
 */
public final class TableMetadataParser {
  /**
   * Default size limit of one metadata file, decompressed: 256 MiB. Parsed metadata takes about its
   * text in heap (snapshots are held as their bytes), so the limit stays well below the service's
   * heap: a small gzip file that inflates past it fails its table instead of the JVM.
   */
  public static final long DEFAULT_MAX_METADATA_BYTES = 256L * 1024 * 1024;

  /**
   * Longest string value read: 64 MiB. Metadata strings are paths and JSON-encoded values (schemas,
   * statistics), far below it; a longer one is hostile input.
   */
  public static final int MAX_STRING_LENGTH = 64 * 1024 * 1024;

  private static final ObjectMapper MAPPER = newMapper();
  private static final Set<String> HISTORY_FIELDS = Set.of(SNAPSHOTS, SNAPSHOT_LOG, METADATA_LOG);

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

  /**
   * Parses metadata from a stream; gzip is detected from its magic bytes. Streamed: the
   * history-long fields are held compactly as they are read, never as a tree of the whole file.
   */
  public static TableMetadata read(InputStream input, String fileName, long maxBytes) {
    return read(input, fileName, maxBytes, MetadataHeapBound.ofThisJvm());
  }

  /**
   * As {@link #read(InputStream, String, long)}, refusing a file larger than {@code heap} holds as
   * soon as that many bytes of it were read.
   */
  static TableMetadata read(
      InputStream input, String fileName, long maxBytes, MetadataHeapBound heap) {
    try (InputStream limited = new LimitedInputStream(decompress(input), maxBytes, heap, fileName);
        JsonParser parser = MAPPER.createParser(limited);
        RawBuffer buffer = new RawBuffer()) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        MAPPER.readTree(parser); // malformed JSON is reported as such
        throw new BadInputException(
            "Cannot read table metadata " + fileName + ": not a JSON object");
      }
      Contents contents = new Contents();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        contents.read(name, parser, buffer);
      }
      TableMetadata metadata = contents.validate(fileName);
      SnapshotGraph.manifestListProblemIn(metadata, fileName)
          .ifPresent(
              problem -> {
                throw new BadInputException(
                    "Cannot read table metadata " + fileName + ": " + problem);
              });
      return metadata;
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

  /** Wraps JSON built as a tree, validating it as any read metadata. */
  public static TableMetadata fromJson(ObjectNode json, String description) {
    return build(json, List.of(), List.of(), List.of(), description);
  }

  /** The builder's metadata: arrays set in the tree are held compactly, then all is validated. */
  static TableMetadata build(
      ObjectNode fields,
      List<Snapshot> snapshots,
      List<SnapshotLogEntry> snapshotLog,
      List<LogEntry> metadataLog,
      String description) {
    Contents contents = new Contents();
    try (RawBuffer buffer = new RawBuffer()) {
      var it = fields.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode value = field.getValue();
        if (value == TableMetadata.COMPACT) {
          contents.hold(field.getKey(), snapshots, snapshotLog, metadataLog);
        } else if (value.isArray() && HISTORY_FIELDS.contains(field.getKey())) {
          try (JsonParser parser = MAPPER.treeAsTokens(value)) {
            parser.nextToken();
            contents.read(field.getKey(), parser, buffer);
          }
        } else {
          contents.fields.set(field.getKey(), value);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot build table metadata " + description, e);
    }
    return contents.validate(description);
  }

  public static byte[] toJson(TableMetadata metadata) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      write(metadata, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write table metadata: " + e.getMessage(), e);
    }
    return bytes.toByteArray();
  }

  /** Streams the metadata JSON to {@code out}, which stays open. */
  public static void write(TableMetadata metadata, OutputStream out) throws IOException {
    try (JsonGenerator generator = MAPPER.createGenerator(out)) {
      generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      metadata.writeTo(generator);
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

  /**
   * The fields of one metadata object as they are read: the history-long arrays held compactly, the
   * rest as trees. A snapshot's problem is kept until the top-level fields were checked, so the
   * first error named is the one a whole-tree validation names.
   */
  private static final class Contents {
    private final ObjectNode fields = MAPPER.createObjectNode();
    private List<Snapshot> snapshots = new ArrayList<>();
    private List<SnapshotLogEntry> snapshotLog = new ArrayList<>();
    private List<LogEntry> metadataLog = new ArrayList<>();
    private String snapshotProblem;

    /** Reads one field's value at the parser's current token. */
    void read(String name, JsonParser parser, RawBuffer buffer) throws IOException {
      boolean array = parser.currentToken() == JsonToken.START_ARRAY;
      if (array && SNAPSHOTS.equals(name)) {
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          Snapshot.Parsed parsed = Snapshot.read(parser, buffer);
          if (parsed.snapshot() != null) {
            snapshots.add(parsed.snapshot());
          } else if (snapshotProblem == null) {
            snapshotProblem = parsed.problem();
          }
        }
        fields.set(name, TableMetadata.COMPACT);
      } else if (array && SNAPSHOT_LOG.equals(name)) {
        fields.set(name, CompactLogs.readSnapshotLog(MAPPER, parser, snapshotLog));
      } else if (array && METADATA_LOG.equals(name)) {
        fields.set(name, CompactLogs.readMetadataLog(MAPPER, parser, metadataLog));
      } else {
        fields.set(name, MAPPER.readTree(parser));
      }
    }

    /**
     * Takes a field a builder holds compactly as it is: an unchanged list (immutable already) is
     * shared, not copied, as a history-long list is not worth a copy per commit.
     */
    void hold(
        String name,
        List<Snapshot> snapshots,
        List<SnapshotLogEntry> snapshotLog,
        List<LogEntry> metadataLog) {
      switch (name) {
        case SNAPSHOTS -> this.snapshots = snapshots;
        case SNAPSHOT_LOG -> this.snapshotLog = snapshotLog;
        default -> this.metadataLog = metadataLog;
      }
      fields.set(name, TableMetadata.COMPACT);
    }

    TableMetadata validate(String fileName) {
      return RequiredFields.check(
          new TableMetadata(fields, snapshots, snapshotLog, metadataLog),
          snapshotProblem,
          fileName);
    }
  }
}
