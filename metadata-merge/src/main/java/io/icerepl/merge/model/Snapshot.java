package io.icerepl.merge.model;

import static io.icerepl.merge.model.TableMetadataFields.*;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * One entry of {@code snapshots}, held compactly: the entry's JSON bytes as read (every field,
 * known or not, kept verbatim) and the few fields the merge, retention and verify read. Long
 * histories hold hundreds of thousands of snapshots, so no tree of their nodes is kept, nor a
 * string of the manifest list: a replica's entry keeps the mapping and applies it when the path is
 * read or the entry written. v1 {@code manifests} (rare, and from before manifest lists) are held
 * as mapped strings.
 */
public final class Snapshot {
  /** Escapes a string as the generator does inside quotes. */
  private static final JsonStringEncoder STRINGS = JsonStringEncoder.getInstance();

  private final byte[] raw;
  private final long snapshotId;
  private final long parentSnapshotId;
  private final boolean hasParent;
  private final long sequenceNumber;
  private final long timestampMs;

  /**
   * Where the {@code manifest-list} value lies in {@link #raw}, from just before its opening quote
   * to after its closing one; {@code listStart} is -1 when the entry has none. Held as offsets, not
   * as a string: the path is about a sixth of an entry and is read rarely.
   */
  private final int listStart;

  private final int listEnd;

  private final List<String> manifests;

  /** How the manifest list is mapped when read or written; null while the entry is as read. */
  private final UnaryOperator<String> pathMap;

  private Snapshot(
      byte[] raw,
      long snapshotId,
      Long parentSnapshotId,
      long sequenceNumber,
      long timestampMs,
      int listStart,
      int listEnd,
      List<String> manifests,
      UnaryOperator<String> pathMap) {
    this.raw = raw;
    this.snapshotId = snapshotId;
    this.hasParent = parentSnapshotId != null;
    this.parentSnapshotId = hasParent ? parentSnapshotId : 0L;
    this.sequenceNumber = sequenceNumber;
    this.timestampMs = timestampMs;
    this.listStart = listStart;
    this.listEnd = listEnd;
    this.manifests = manifests;
    this.pathMap = pathMap;
  }

  /**
   * The entry's JSON, its mapped paths in place: a new tree on every call, for the rare reader of a
   * field the compact entry does not hold.
   */
  public ObjectNode json() {
    ObjectNode json = parseRaw();
    if (pathMap != null) {
      if (listStart >= 0) {
        json.put(MANIFEST_LIST, manifestList().orElseThrow());
      }
      if (json.has(MANIFESTS)) {
        json.set(MANIFESTS, TableMetadataParser.mapper().valueToTree(manifests));
      }
    }
    return json;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public Optional<Long> parentSnapshotId() {
    return hasParent ? Optional.of(parentSnapshotId) : Optional.empty();
  }

  public long sequenceNumber() {
    return sequenceNumber;
  }

  public long timestampMs() {
    return timestampMs;
  }

  /** The manifest list, absent for v1 snapshots that list {@code manifests} instead. */
  public Optional<String> manifestList() {
    if (listStart < 0) {
      return Optional.empty();
    }
    String read = readManifestList();
    return Optional.of(pathMap == null ? read : pathMap.apply(read));
  }

  /** The manifest list as the entry's bytes spell it, before any mapping. */
  private String readManifestList() {
    int quote = openingQuote();
    boolean escaped = false;
    for (int i = quote + 1; i < listEnd - 1 && !escaped; i++) {
      escaped = raw[i] == '\\';
    }
    if (!escaped) {
      return new String(raw, quote + 1, listEnd - quote - 2, StandardCharsets.UTF_8);
    }
    try (JsonParser in = TableMetadataParser.mapper().createParser(raw, quote, listEnd - quote)) {
      in.nextToken();
      return in.getText();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read a snapshot held in memory", e);
    }
  }

  /** Where the manifest list's opening quote lies in {@link #raw}. */
  private int openingQuote() {
    int quote = listStart;
    while (raw[quote] != '"') {
      quote++; // the separator the generator writes before a value
    }
    return quote;
  }

  /**
   * Whether this entry's manifest list, as mapped, is {@code source}'s mapped by {@code map}, known
   * without decoding or mapping either: {@code source} is as read, both spell the same path, and
   * this entry was mapped by a map equal to {@code map} (a {@code PathMapping} with the same
   * prefixes). False says only that it is not known this way.
   */
  public boolean hasManifestListOf(Snapshot source, UnaryOperator<String> map) {
    return listStart >= 0
        && source.listStart >= 0
        && source.pathMap == null
        && map.equals(pathMap)
        && Arrays.equals(raw, listStart, listEnd, source.raw, source.listStart, source.listEnd);
  }

  /** The v1 {@code manifests} field, empty when the snapshot has a manifest list. */
  public List<String> manifests() {
    return manifests;
  }

  /**
   * This snapshot with its manifest list and v1 manifests mapped: the bytes are shared, the
   * manifest list mapped each time it is read or written (a history of a million snapshots would
   * otherwise hold a million mapped paths). {@code map} must give the same path on every call.
   */
  public Snapshot withManifestPaths(UnaryOperator<String> map) {
    UnaryOperator<String> first = pathMap;
    UnaryOperator<String> composed = first == null ? map : path -> map.apply(first.apply(path));
    if (listStart >= 0) {
      composed.apply(readManifestList()); // a path the map refuses fails here, not when written
    }
    return new Snapshot(
        raw,
        snapshotId,
        hasParent ? parentSnapshotId : null,
        sequenceNumber,
        timestampMs,
        listStart,
        listEnd,
        manifests.isEmpty() ? List.of() : manifests.stream().map(map).toList(),
        composed);
  }

  /** The entry's JSON bytes as read, before any path was mapped. */
  byte[] raw() {
    return raw;
  }

  /**
   * Writes the entry: its bytes as they are, with the mapped manifest list spliced in where the
   * source's lies (every other byte is what the generator wrote when the entry was read, so
   * re-encoding the entry would give the same bytes). Only v1 {@code manifests} are re-streamed.
   */
  void writeTo(JsonGenerator out) throws IOException {
    if (pathMap == null || (listStart < 0 && manifests.isEmpty())) {
      out.writeRawValue(new RawJson(raw));
      return;
    }
    String list = listStart < 0 ? null : manifestList().orElseThrow();
    if (manifests.isEmpty() && !hasSurrogates(list)) {
      int quote = openingQuote();
      out.writeRawValue(new RawJson(raw, 0, quote + 1));
      out.writeRaw(new RawJson(STRINGS.quoteAsUTF8(list)));
      out.writeRaw(new RawJson(raw, listEnd - 1, raw.length - listEnd + 1));
      return;
    }
    try (JsonParser in = TableMetadataParser.mapper().createParser(raw)) {
      in.nextToken();
      out.writeStartObject();
      while (in.nextToken() == JsonToken.FIELD_NAME) {
        String name = in.currentName();
        in.nextToken();
        out.writeFieldName(name);
        if (MANIFEST_LIST.equals(name) && listStart >= 0) {
          in.skipChildren();
          out.writeString(list);
        } else if (MANIFESTS.equals(name) && in.currentToken() == JsonToken.START_ARRAY) {
          in.skipChildren();
          out.writeStartArray();
          for (String manifest : manifests) {
            out.writeString(manifest);
          }
          out.writeEndArray();
        } else {
          out.copyCurrentStructure(in);
        }
      }
      out.writeEndObject();
    }
  }

  /**
   * Whether {@code path} has characters beyond the Basic Multilingual Plane, which the generator
   * escapes as surrogate pairs and the string encoder does not: such an entry is re-streamed.
   */
  private static boolean hasSurrogates(String path) {
    for (int i = 0; i < path.length(); i++) {
      if (Character.isSurrogate(path.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private ObjectNode parseRaw() {
    try {
      return (ObjectNode) TableMetadataParser.mapper().readTree(raw);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read a snapshot held in memory", e);
    }
  }

  /**
   * Reads one {@code snapshots} element at the parser's current token into a compact entry, copying
   * its bytes through {@code buffer}. The fields it keeps are read as tree values and interpreted
   * as the spec's readers do.
   *
   * @return the entry, or the reason it is invalid (the problem is reported once every required
   *     top-level field was checked, in the order a tree's validation would report it)
   */
  static Parsed read(JsonParser in, RawBuffer buffer) throws IOException {
    if (in.currentToken() != JsonToken.START_OBJECT) {
      in.skipChildren();
      return new Parsed(null, "missing required field '" + SNAPSHOT_ID + "' in a snapshot");
    }
    ObjectNode keys = TableMetadataParser.mapper().createObjectNode();
    JsonGenerator out = buffer.start();
    out.writeStartObject();
    int listStart = -1;
    int listEnd = -1;
    while (in.nextToken() == JsonToken.FIELD_NAME) {
      String name = in.currentName();
      in.nextToken();
      out.writeFieldName(name);
      if (isKey(name)) {
        JsonNode value = TableMetadataParser.mapper().readTree(in);
        keys.set(name, value);
        boolean list = MANIFEST_LIST.equals(name) && value.isTextual();
        if (list) {
          listStart = buffer.position();
        }
        out.writeTree(value);
        if (list) {
          listEnd = buffer.position();
        }
      } else {
        out.copyCurrentStructure(in);
      }
    }
    out.writeEndObject();
    byte[] raw = buffer.finish();
    String problem = problem(keys);
    return problem != null
        ? new Parsed(null, problem)
        : new Parsed(of(raw, keys, listStart, listEnd), null);
  }

  /** A snapshot from its JSON tree. */
  static Parsed fromTree(JsonNode node, RawBuffer buffer) throws IOException {
    try (JsonParser in = TableMetadataParser.mapper().treeAsTokens(node)) {
      in.nextToken();
      return read(in, buffer);
    }
  }

  private static boolean isKey(String name) {
    return switch (name) {
      case SNAPSHOT_ID,
          PARENT_SNAPSHOT_ID,
          SEQUENCE_NUMBER,
          TIMESTAMP_MS,
          MANIFEST_LIST,
          MANIFESTS ->
          true;
      default -> false;
    };
  }

  private static String problem(ObjectNode keys) {
    JsonNode id = keys.get(SNAPSHOT_ID);
    if (id == null || id.isNull()) {
      return "missing required field '" + SNAPSHOT_ID + "' in a snapshot";
    }
    String where = " in snapshot " + id.asText();
    JsonNode timestamp = keys.get(TIMESTAMP_MS);
    if (timestamp == null || timestamp.isNull()) {
      return "missing required field '" + TIMESTAMP_MS + "'" + where;
    }
    // Not required even in v2 and v3 (spec, Appendix E): a snapshot kept from before an upgrade
    // from v1 has no sequence-number (0, which Iceberg omits), and may have no summary and
    // embedded manifests instead of a manifest list.
    JsonNode manifestList = keys.get(MANIFEST_LIST);
    if ((manifestList != null && !manifestList.isNull()) || !keys.has(MANIFESTS)) {
      if (manifestList == null || manifestList.isNull()) {
        return "missing required field '" + MANIFEST_LIST + "'" + where;
      }
      if (!manifestList.isTextual()) {
        return "field '" + MANIFEST_LIST + "'" + where + " must be a string";
      }
    }
    return null;
  }

  private static Snapshot of(byte[] raw, ObjectNode keys, int listStart, int listEnd) {
    JsonNode parent = keys.get(PARENT_SNAPSHOT_ID);
    JsonNode sequence = keys.get(SEQUENCE_NUMBER);
    List<String> manifests = new ArrayList<>();
    JsonNode manifestsNode = keys.get(MANIFESTS);
    if (manifestsNode != null && manifestsNode.isArray()) {
      manifestsNode.forEach(m -> manifests.add(m.asText()));
    }
    return new Snapshot(
        raw,
        keys.get(SNAPSHOT_ID).asLong(),
        parent == null || parent.isNull() ? null : parent.asLong(),
        sequence == null ? 0L : sequence.asLong(),
        keys.get(TIMESTAMP_MS).asLong(),
        listStart,
        listEnd,
        manifests.isEmpty() ? List.of() : List.copyOf(manifests),
        null);
  }

  /** A snapshot read, or why it is invalid. */
  record Parsed(Snapshot snapshot, String problem) {}
}
