package io.icerepl.merge.state;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.retention.ExpiredSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads and writes {@link ReplicaState} as versioned JSON. {@value #VERSION} is the only state
 * version so far; a newer one is refused with both versions named, before anything is written. A
 * field added in a compatible way (read as absent by older releases, which keep their meaning
 * without it) does not raise the version; docs/deployment.md lists what each release adds.
 */
public final class ReplicaStateParser {
  static final String STATE_VERSION = "state-version";
  static final String EXPIRED_SNAPSHOT_IDS = "expired-snapshot-ids";
  static final String DROPPED_REFS = "dropped-refs";
  static final String PENDING_DELETES = "pending-deletes";
  static final String SNAPSHOT_ID = "snapshot-id";
  static final String MANIFEST_LIST = "manifest-list";
  static final String MANIFESTS = "manifests";
  static final String STATISTICS_FILES = "statistics-files";
  static final String LAST_COMMIT = "last-commit";
  static final String REPLACED_STATISTICS_FILES = "replaced-statistics-files";
  static final String VERSION_FIELD = "version";
  static final String TOKEN = "token";
  static final String PREVIOUS_TOKEN = "previous-token";
  static final String SOURCE_PREFIXES = "source-prefixes";
  static final String SOURCE = "source";
  static final String TARGET = "target";
  static final String PROMOTION = "promotion";
  static final String EPOCH = "epoch";
  static final String PROMOTED_AT_MS = "promoted-at-ms";
  static final String MODE = "mode";
  static final String LAST_SOURCE_METADATA_FILE = "last-source-metadata-file";
  static final String LAST_SOURCE_LAST_UPDATED_MS = "last-source-last-updated-ms";
  static final String REPLICA_VERSION = "replica-version";
  static final String KEPT_REFS = "kept-refs";
  static final String MIRROR_PREFIXES = "mirror-prefixes";
  static final String MAPPED_PREFIXES = "mapped-prefixes";
  static final String CUT_TAGS = "cut-tags";
  static final String CUT_TAG = "cut-tag";
  static final String FENCING_EPOCH = "fencing-epoch";
  static final String KNOWN_CURRENT_FROM_MS = "known-current-from-ms";
  static final String GROUP = "group";
  static final String NAME = "name";
  static final String REF = "ref";
  static final String MEMBERS = "members";
  static final String CLOCK_SKEW_MS = "clock-skew-ms";
  static final String TRANSACTION_WINDOW_MS = "transaction-window-ms";

  /** The state version this release writes and the newest it reads. */
  public static final int VERSION = 1;

  private static final ObjectMapper MAPPER = TableMetadataParser.mapper();

  private ReplicaStateParser() {}

  public static byte[] toJson(ReplicaState state) {
    return toJson(new FencedState(state, 0));
  }

  /**
   * As {@link #toJson(ReplicaState)}, with the fencing epoch of the run writing it; epoch 0 (no
   * leased run wrote it yet) is left out, so such a state is written exactly as before epochs.
   */
  public static byte[] toJson(FencedState fenced) {
    ReplicaState state = fenced.state();
    ObjectNode json = MAPPER.createObjectNode();
    json.put(STATE_VERSION, VERSION);
    if (fenced.fencingEpoch() > 0) {
      json.put(FENCING_EPOCH, fenced.fencingEpoch());
    }
    ArrayNode ids = json.putArray(EXPIRED_SNAPSHOT_IDS);
    new TreeSet<>(state.expiredSnapshotIds()).forEach(ids::add);
    ObjectNode refs = json.putObject(DROPPED_REFS);
    new TreeMap<>(state.droppedRefs()).forEach(refs::put);
    ArrayNode pending = json.putArray(PENDING_DELETES);
    for (ExpiredSnapshot snapshot : state.pendingDeletes()) {
      ObjectNode node = pending.addObject();
      node.put(SNAPSHOT_ID, snapshot.snapshotId());
      if (snapshot.manifestList() != null) {
        node.put(MANIFEST_LIST, snapshot.manifestList());
      }
      snapshot.manifests().forEach(node.putArray(MANIFESTS)::add);
      snapshot.statisticsFiles().forEach(node.putArray(STATISTICS_FILES)::add);
    }
    if (!state.replacedStatisticsFiles().isEmpty()) {
      state.replacedStatisticsFiles().forEach(json.putArray(REPLACED_STATISTICS_FILES)::add);
    }
    if (state.lastCommit() != null) {
      ObjectNode commit = json.putObject(LAST_COMMIT);
      commit.put(VERSION_FIELD, state.lastCommit().version());
      commit.put(TOKEN, state.lastCommit().token());
      if (state.lastCommit().previousToken() != null) {
        commit.put(PREVIOUS_TOKEN, state.lastCommit().previousToken());
      }
    }
    writePrefixes(json, SOURCE_PREFIXES, state.sourcePrefixes());
    writePrefixes(json, MIRROR_PREFIXES, state.mirrorPrefixes());
    writePrefixes(json, MAPPED_PREFIXES, state.mappedPrefixes());
    if (state.promotion() != null) {
      writePromotion(json.putObject(PROMOTION), state.promotion());
    }
    if (!state.keptRefs().isEmpty()) {
      ObjectNode kept = json.putObject(KEPT_REFS);
      new TreeMap<>(state.keptRefs()).forEach(kept::put);
    }
    if (!state.cutTags().isEmpty()) {
      ObjectNode tags = json.putObject(CUT_TAGS);
      new TreeMap<>(state.cutTags()).forEach(tags::put);
    }
    if (state.knownCurrentFromMs() != null) {
      json.put(KNOWN_CURRENT_FROM_MS, state.knownCurrentFromMs());
    }
    if (state.group() != null) {
      GroupMembership group = state.group();
      ObjectNode node = json.putObject(GROUP);
      node.put(NAME, group.name());
      node.put(REF, group.ref());
      group.members().forEach(node.putArray(MEMBERS)::add);
      node.put(CLOCK_SKEW_MS, group.clockSkew().toMillis());
      node.put(TRANSACTION_WINDOW_MS, group.transactionWindow().toMillis());
    }
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write replica state: " + e.getMessage(), e);
    }
  }

  public static ReplicaState fromJson(byte[] bytes, String fileName) {
    return readFenced(bytes, fileName).state();
  }

  /** The state and the fencing epoch of the run that wrote it (0 when none is recorded). */
  public static FencedState readFenced(byte[] bytes, String fileName) {
    JsonNode json;
    try {
      json = MAPPER.readTree(bytes);
    } catch (IOException e) {
      throw new BadInputException("Cannot read replica state " + fileName + ": malformed JSON", e);
    }
    if (json == null || !json.isObject() || !json.has(STATE_VERSION)) {
      throw new BadInputException(
          "Cannot read replica state " + fileName + ": missing " + STATE_VERSION);
    }
    JsonNode versionNode = json.get(STATE_VERSION);
    if (!versionNode.canConvertToInt() || versionNode.asInt() < 1) {
      throw new BadInputException(
          "Cannot read replica state "
              + fileName
              + ": "
              + STATE_VERSION
              + " "
              + versionNode
              + " is not a state version");
    }
    int version = versionNode.asInt();
    if (version > VERSION) {
      throw new BadInputException(
          "Cannot read replica state "
              + fileName
              + ": it is state-version "
              + version
              + ", written by a newer release, and this release reads state-version "
              + VERSION
              + " at most; the replica is left as it is until this instance is upgraded");
    }
    JsonNode epochNode = json.get(FENCING_EPOCH);
    if (epochNode != null && !(epochNode.canConvertToLong() && epochNode.asLong() >= 0)) {
      throw new BadInputException(
          "Cannot read replica state "
              + fileName
              + ": "
              + FENCING_EPOCH
              + " "
              + epochNode
              + " is not a non-negative number");
    }
    long fencingEpoch = epochNode == null ? 0 : epochNode.asLong();
    Set<Long> ids = new TreeSet<>();
    json.path(EXPIRED_SNAPSHOT_IDS).forEach(n -> ids.add(n.asLong()));
    Map<String, Long> refs = new LinkedHashMap<>();
    json.path(DROPPED_REFS)
        .fields()
        .forEachRemaining(e -> refs.put(e.getKey(), e.getValue().asLong()));
    List<ExpiredSnapshot> pending = new ArrayList<>();
    for (JsonNode node : json.path(PENDING_DELETES)) {
      List<String> manifests = new ArrayList<>();
      node.path(MANIFESTS).forEach(n -> manifests.add(n.asText()));
      List<String> statistics = new ArrayList<>();
      node.path(STATISTICS_FILES).forEach(n -> statistics.add(n.asText()));
      JsonNode list = node.get(MANIFEST_LIST);
      pending.add(
          new ExpiredSnapshot(
              node.get(SNAPSHOT_ID).asLong(),
              list == null ? null : list.asText(),
              manifests,
              statistics));
    }
    ReplicaState.LastCommit lastCommit = null;
    JsonNode commit = json.get(LAST_COMMIT);
    if (commit != null && commit.isObject()) {
      JsonNode previous = commit.get(PREVIOUS_TOKEN);
      lastCommit =
          new ReplicaState.LastCommit(
              commit.path(VERSION_FIELD).asLong(),
              commit.path(TOKEN).asText(),
              previous == null || previous.isNull() ? null : previous.asText());
    }
    // absent from the state of replicas made before prefixes were kept
    List<PathMapping.Prefix> prefixes = readPrefixes(json, SOURCE_PREFIXES, fileName);
    // absent until a file no metadata declares a prefix for was mapped by the mirror
    List<PathMapping.Prefix> mirror = readPrefixes(json, MIRROR_PREFIXES, fileName);
    // absent until a run was given a --map, and from older releases
    List<PathMapping.Prefix> mapped = readPrefixes(json, MAPPED_PREFIXES, fileName);
    List<String> replacedStatistics = new ArrayList<>();
    json.path(REPLACED_STATISTICS_FILES).forEach(n -> replacedStatistics.add(n.asText()));
    // absent until the replica is promoted, and from states written before promotions existed
    Promotion promotion =
        json.hasNonNull(PROMOTION) ? readPromotion(json.get(PROMOTION), fileName) : null;
    // absent until a fail-back keeps orphan tags
    Map<String, Long> kept = new LinkedHashMap<>();
    json.path(KEPT_REFS)
        .fields()
        .forEachRemaining(e -> kept.put(e.getKey(), e.getValue().asLong()));
    // absent until a replication group tags the replica
    Map<String, Long> cutTags = new LinkedHashMap<>();
    json.path(CUT_TAGS)
        .fields()
        .forEachRemaining(e -> cutTags.put(e.getKey(), e.getValue().asLong()));
    return new FencedState(
        ReplicaState.builder()
            .expiredSnapshotIds(ids)
            .droppedRefs(refs)
            .pendingDeletes(pending)
            .lastCommit(lastCommit)
            .sourcePrefixes(prefixes)
            .replacedStatisticsFiles(replacedStatistics)
            .promotion(promotion)
            .keptRefs(kept)
            .mirrorPrefixes(mirror)
            .mappedPrefixes(mapped)
            .cutTags(cutTags)
            // absent until a run or check found the replica current, and from older releases
            .knownCurrentFromMs(readKnownCurrent(json, fileName))
            // absent unless the service replicates the table as a member of a group
            .group(json.hasNonNull(GROUP) ? readGroup(json.get(GROUP), fileName) : null)
            .build(),
        fencingEpoch);
  }

  private static Long readKnownCurrent(JsonNode json, String fileName) {
    JsonNode node = json.get(KNOWN_CURRENT_FROM_MS);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.canConvertToLong() || !node.isIntegralNumber()) {
      throw new BadInputException(
          "Cannot read replica state "
              + fileName
              + ": "
              + KNOWN_CURRENT_FROM_MS
              + " "
              + node
              + " is not a time in milliseconds");
    }
    return node.asLong();
  }

  private static GroupMembership readGroup(JsonNode node, String fileName) {
    if (!node.path(NAME).isTextual()
        || !node.path(REF).isTextual()
        || !node.path(MEMBERS).isArray()
        || !node.path(CLOCK_SKEW_MS).canConvertToLong()
        || !node.path(TRANSACTION_WINDOW_MS).canConvertToLong()
        || node.path(CLOCK_SKEW_MS).asLong() < 0
        || node.path(TRANSACTION_WINDOW_MS).asLong() < 0) {
      throw new BadInputException(
          "Cannot read replica state "
              + fileName
              + ": its "
              + GROUP
              + " needs a "
              + NAME
              + ", a "
              + REF
              + ", its "
              + MEMBERS
              + " and non-negative "
              + CLOCK_SKEW_MS
              + " and "
              + TRANSACTION_WINDOW_MS);
    }
    List<String> members = new ArrayList<>();
    for (JsonNode member : node.get(MEMBERS)) {
      if (!member.isTextual()) {
        throw new BadInputException(
            "Cannot read replica state " + fileName + ": a group member is not a location");
      }
      members.add(member.asText());
    }
    return new GroupMembership(
        node.get(NAME).asText(),
        node.get(REF).asText(),
        members,
        java.time.Duration.ofMillis(node.get(CLOCK_SKEW_MS).asLong()),
        java.time.Duration.ofMillis(node.get(TRANSACTION_WINDOW_MS).asLong()));
  }

  private static void writePrefixes(
      ObjectNode json, String field, List<PathMapping.Prefix> prefixes) {
    if (!prefixes.isEmpty()) {
      ArrayNode array = json.putArray(field);
      prefixes.forEach(p -> array.addObject().put(SOURCE, p.source()).put(TARGET, p.target()));
    }
  }

  private static List<PathMapping.Prefix> readPrefixes(
      JsonNode json, String field, String fileName) {
    List<PathMapping.Prefix> prefixes = new ArrayList<>();
    for (JsonNode node : json.path(field)) {
      if (!node.path(SOURCE).isTextual() || !node.path(TARGET).isTextual()) {
        throw new BadInputException(
            "Cannot read replica state "
                + fileName
                + ": a "
                + field
                + " entry lacks its "
                + SOURCE
                + " or "
                + TARGET);
      }
      prefixes.add(new PathMapping.Prefix(node.get(SOURCE).asText(), node.get(TARGET).asText()));
    }
    return prefixes;
  }

  private static void writePromotion(ObjectNode node, Promotion promotion) {
    node.put(EPOCH, promotion.epoch());
    node.put(PROMOTED_AT_MS, promotion.promotedAtMillis());
    node.put(MODE, promotion.mode());
    node.put(LAST_SOURCE_METADATA_FILE, promotion.lastSourceMetadataFile());
    if (promotion.lastSourceLastUpdatedMs() != null) {
      node.put(LAST_SOURCE_LAST_UPDATED_MS, promotion.lastSourceLastUpdatedMs());
    }
    node.put(REPLICA_VERSION, promotion.replicaVersion());
    if (promotion.cutTag() != null) {
      node.put(CUT_TAG, promotion.cutTag());
    }
  }

  private static Promotion readPromotion(JsonNode node, String fileName) {
    for (String field :
        List.of(EPOCH, PROMOTED_AT_MS, MODE, LAST_SOURCE_METADATA_FILE, REPLICA_VERSION)) {
      if (!node.hasNonNull(field)) {
        throw new BadInputException(
            "Cannot read replica state " + fileName + ": its " + PROMOTION + " lacks " + field);
      }
    }
    JsonNode updated = node.get(LAST_SOURCE_LAST_UPDATED_MS);
    return new Promotion(
        node.get(EPOCH).asLong(),
        node.get(PROMOTED_AT_MS).asLong(),
        node.get(MODE).asText(),
        node.get(LAST_SOURCE_METADATA_FILE).asText(),
        updated == null || updated.isNull() ? null : updated.asLong(),
        node.get(REPLICA_VERSION).asLong(),
        // absent for a promotion of the table alone
        node.hasNonNull(CUT_TAG) ? node.get(CUT_TAG).asText() : null);
  }
}
