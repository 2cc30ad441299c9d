package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.failover.PromotedMetadata;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.TableLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetadataMergeTest {
  private static final String SRC = "s3://source/db/t";
  private static final String DST = "s3://replica/db/t";

  private static MergeResult merge(MetadataJson source, TableMetadata replica, long now) {
    return merge(source, replica, now, Set.of());
  }

  private static MergeResult merge(
      MetadataJson source, TableMetadata replica, long now, Set<Long> expired) {
    TableMetadata metadata = source.build();
    MergeRequest.Builder request =
        MergeRequest.builder()
            .source(metadata, SRC + "/metadata/v9.metadata.json")
            .targetLocation(DST)
            .mapping(TableLayout.mapping(metadata, DST, List.of()))
            .commitTimeMs(now)
            .expiredSnapshotIds(expired);
    if (replica != null) {
      request.replica(replica, DST + "/metadata/v1.metadata.json");
    }
    return MetadataMerge.merge(request.build());
  }

  @Test
  void aBackfillSharesTheSourceEntriesAndSnapshotLogInsteadOfCopyingThem() {
    TableMetadata source =
        MetadataJson.table(2, SRC)
            .commit(1, null, 100)
            .commit(2, 1L, 200)
            .commit(3, 2L, 300)
            .build();
    MergeResult result =
        MetadataMerge.merge(
            MergeRequest.builder()
                .source(source, SRC + "/metadata/v9.metadata.json")
                .targetLocation(DST)
                .mapping(TableLayout.mapping(source, DST, List.of()))
                .commitTimeMs(5_000)
                .build());

    // a long history's log and entries are held once, by the source and the replica alike
    assertThat(result.metadata().snapshotLog()).isSameAs(source.snapshotLog()).hasSize(3);
    assertThat(result.addedSnapshots())
        .extracting(MergeResult.AddedSnapshot::source)
        .containsExactlyElementsOf(source.snapshots());
    assertThat(result.addedSnapshots().get(2).parentSnapshotId()).isEqualTo(2L);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void backfillKeepsSnapshotsAsTheyAreExceptPaths(int formatVersion) {
    MetadataJson source =
        MetadataJson.table(formatVersion, SRC).commit(1, null, 100).commit(2, 1L, 200);
    source.json.put("unknown-future-field", "kept");

    MergeResult result = merge(source, null, 5_000);

    JsonNode out = result.metadata().json();
    assertThat(out.get("location").asText()).isEqualTo(DST);
    assertThat(out.get("unknown-future-field").asText()).isEqualTo("kept");
    assertThat(result.metadata().formatVersion()).isEqualTo(formatVersion);
    JsonNode snapshot = out.get("snapshots").get(1);
    JsonNode original = source.json.get("snapshots").get(1);
    assertThat(snapshot.get("manifest-list").asText()).isEqualTo(DST + "/metadata/snap-2.avro");
    for (String field :
        List.of("snapshot-id", "parent-snapshot-id", "timestamp-ms", "summary", "schema-id")) {
      // as written: a tree built in memory and one read back differ in int and long nodes
      assertThat(String.valueOf(snapshot.get(field)))
          .as(field)
          .isEqualTo(String.valueOf(original.get(field)));
    }
    assertThat(result.addedSnapshots())
        .extracting(MergeResult.AddedSnapshot::snapshotId)
        .containsExactly(1L, 2L);
    assertThat(result.addedSnapshots().get(1).sourceManifestList())
        .isEqualTo(SRC + "/metadata/snap-2.avro");
    assertThat(out.get("metadata-log")).isEmpty();
    assertThat(out.get("last-updated-ms").asLong()).isEqualTo(5_000);
    if (formatVersion == 1) {
      assertThat(out.get("schema")).isEqualTo(source.json.get("schema"));
      assertThat(out.has("partition-spec")).isTrue();
    }
  }

  @Test
  void snapshotsTheSourceExpiredStayOnTheReplica() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    TableMetadata replica = merge(source, null, 300).metadata();

    source.commit(3, 2L, 400).dropSnapshot(1);
    MergeResult result = merge(source, replica, 500);

    assertThat(result.metadata().snapshots())
        .extracting(s -> s.snapshotId())
        .containsExactly(1L, 2L, 3L);
    assertThat(result.addedSnapshots())
        .extracting(MergeResult.AddedSnapshot::snapshotId)
        .containsExactly(3L);
    assertThat(result.metadata().snapshotLog())
        .extracting(TableMetadata.SnapshotLogEntry::snapshotId)
        .containsExactly(1L, 2L, 3L);
  }

  @Test
  void snapshotLogKeepsTheSourceOrderOnRollback() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    TableMetadata replica = merge(source, null, 300).metadata();
    // rollback to 1: the source logs 1 again, after 2
    source.json.put("current-snapshot-id", 1);
    source
        .json
        .withArray("snapshot-log")
        .addObject()
        .put("timestamp-ms", 250)
        .put("snapshot-id", 1);

    MergeResult result = merge(source, replica, 400);

    assertThat(result.metadata().snapshotLog())
        .containsExactly(
            new TableMetadata.SnapshotLogEntry(100, 1),
            new TableMetadata.SnapshotLogEntry(200, 2),
            new TableMetadata.SnapshotLogEntry(250, 1));
  }

  @Test
  void snapshotLogDropsEntriesUpToOneWhoseSnapshotTheReplicaDoesNotHold() {
    MetadataJson source =
        MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200).commit(3, 2L, 300);
    // the replica's retention expired snapshot 2 earlier: it stays expired
    MergeResult result = merge(source, null, 400, Set.of(2L));

    assertThat(result.metadata().snapshots())
        .extracting(s -> s.snapshotId())
        .containsExactly(1L, 3L);
    assertThat(result.metadata().snapshotLog())
        .containsExactly(new TableMetadata.SnapshotLogEntry(300, 3));
  }

  @Test
  void anExpiredSnapshotComesBackWhenTheSourceMakesItCurrent() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    source.json.put("current-snapshot-id", 1);
    source.json.with("refs").with("main").put("snapshot-id", 1);

    MergeResult result = merge(source, null, 400, Set.of(1L));

    assertThat(result.addedSnapshots())
        .extracting(MergeResult.AddedSnapshot::snapshotId)
        .contains(1L);
  }

  @Test
  void reusedSchemaIdWithDifferentContentIsAConflict() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    TableMetadata replica = merge(source, null, 300).metadata();
    source.json.withArray("schemas").set(0, MetadataJson.schema(0, "id", "string"));

    assertThatThrownBy(() -> merge(source, replica, 400))
        .isInstanceOf(ConflictException.class)
        .hasMessage(
            "Cannot merge schema 0 of table metadata "
                + SRC
                + "/metadata/v9.metadata.json: the replica"
                + " holds a different schema with the same schema-id (the id was reused); replicas keep"
                + " old snapshots that need the old one");
  }

  @Test
  void reusedSpecIdWithDifferentContentIsAConflict() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    TableMetadata replica = merge(source, null, 300).metadata();
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            source.json.withArray("partition-specs").get(0))
        .withArray("fields")
        .addObject()
        .put("name", "id_bucket")
        .put("transform", "bucket[4]")
        .put("source-id", 1)
        .put("field-id", 1000);

    assertThatThrownBy(() -> merge(source, replica, 400))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("Cannot merge partition spec 0");
  }

  @Test
  void aSchemaSpecAndOrderReSpelledByAnotherWriterKeepTheReplicasSpelling() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    TableMetadata replica = merge(source, null, 300).metadata();
    com.fasterxml.jackson.databind.node.ObjectNode schema =
        (com.fasterxml.jackson.databind.node.ObjectNode) source.json.withArray("schemas").get(0);
    schema.putArray("identifier-field-ids");
    ((com.fasterxml.jackson.databind.node.ObjectNode) schema.get("fields").get(0))
        .putNull("doc")
        .put("type", "LONG");
    ((com.fasterxml.jackson.databind.node.ObjectNode) source.json.withArray("sort-orders").get(0))
        .putNull("unknown");

    MergeResult result = merge(source, replica, 400);

    assertThat(result.metadata().json().get("schemas")).isEqualTo(replica.json().get("schemas"));
    assertThat(result.metadata().json().get("sort-orders"))
        .isEqualTo(replica.json().get("sort-orders"));
  }

  @Test
  void v1MetadataFromBeforeIceberg011GetsTheListsReadersDerive() {
    MetadataJson source = MetadataJson.table(1, SRC).commit(1, null, 100);
    for (String field :
        List.of(
            "schemas",
            "current-schema-id",
            "partition-specs",
            "default-spec-id",
            "last-partition-id",
            "sort-orders",
            "default-sort-order-id")) {
      source.json.remove(field);
    }
    ((com.fasterxml.jackson.databind.node.ObjectNode) source.json.get("schema"))
        .remove("schema-id");
    source
        .json
        .putArray("partition-spec")
        .addObject()
        .put("name", "id")
        .put("transform", "identity")
        .put("source-id", 1);

    JsonNode out = merge(source, null, 300).metadata().json();

    assertThat(out.get("schemas")).hasSize(1);
    assertThat(out.get("schemas").get(0).get("schema-id").asInt()).isZero();
    assertThat(out.get("schemas").get(0).get("fields"))
        .isEqualTo(source.json.get("schema").get("fields"));
    assertThat(out.get("current-schema-id").asInt()).isZero();
    assertThat(out.get("partition-specs").toString())
        .isEqualTo(
            "[{\"spec-id\":0,\"fields\":[{\"name\":\"id\",\"transform\":\"identity\",\"source-id\":1,\"field-id\":1000}]}]");
    assertThat(out.get("default-spec-id").asInt()).isZero();
    assertThat(out.get("last-partition-id").asInt()).isEqualTo(1000);
    assertThat(out.get("sort-orders").toString()).isEqualTo("[{\"order-id\":0,\"fields\":[]}]");
    assertThat(out.get("default-sort-order-id").asInt()).isZero();
    assertThat(out.get("schema")).isEqualTo(source.json.get("schema"));
    assertThat(out.get("partition-spec")).isEqualTo(source.json.get("partition-spec"));
  }

  @Test
  void aSnapshotSpelledWithAnExplicitZeroSequenceNumberAndNullParentIsTheSameSnapshot() {
    MetadataJson source = MetadataJson.table(1, SRC).commit(1, null, 100);
    com.fasterxml.jackson.databind.node.ObjectNode snapshot =
        (com.fasterxml.jackson.databind.node.ObjectNode) source.json.withArray("snapshots").get(0);
    snapshot.remove(List.of("sequence-number", "parent-snapshot-id"));
    TableMetadata replica = merge(source, null, 300).metadata();
    snapshot.put("sequence-number", 0).putNull("parent-snapshot-id");

    assertThat(merge(source, replica, 400).metadata().snapshots()).hasSize(1);
  }

  @Test
  void newSchemasAreAddedAndOldOnesKept() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    TableMetadata replica = merge(source, null, 300).metadata();
    source.json.withArray("schemas").set(0, MetadataJson.schema(1, "id", "long"));
    source.json.put("current-schema-id", 1);

    MergeResult result = merge(source, replica, 400);

    assertThat(result.metadata().json().get("schemas"))
        .extracting(s -> s.get("schema-id").asInt())
        .containsExactly(0, 1);
    assertThat(result.metadata().json().get("current-schema-id").asInt()).isEqualTo(1);
  }

  @Test
  void changedTableUuidIsAConflict() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    TableMetadata replica = merge(source, null, 300).metadata();
    source.json.put("table-uuid", "00000000-0000-0000-0000-000000000000");

    assertThatThrownBy(() -> merge(source, replica, 400))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining(
            "its table-uuid 00000000-0000-0000-0000-000000000000 differs from the replica's "
                + MetadataJson.UUID);
  }

  @Test
  void lowerLastSequenceNumberMeansTheSourceWasRewound() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    TableMetadata replica = merge(source, null, 300).metadata();
    source.json.put("last-sequence-number", 1);

    assertThatThrownBy(() -> merge(source, replica, 400))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining(
            "its last-sequence-number 1 is lower than the replica's 2; the source was rewound");
  }

  @Test
  void encryptedTablesAreRefused() {
    MetadataJson source = MetadataJson.table(3, SRC).commit(1, null, 100);
    source
        .json
        .putArray("encryption-keys")
        .addObject()
        .put("key-id", "k1")
        .put("encrypted-key-metadata", "AAAA");

    assertThatThrownBy(() -> merge(source, null, 400))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessage(
            "Cannot replicate table metadata "
                + SRC
                + "/metadata/v9.metadata.json: encrypted tables are not supported");
  }

  @Test
  void pathPropertiesAreRewrittenAndOutsideWritePathsMapIntoTheReplica() {
    MetadataJson source =
        MetadataJson.table(2, SRC)
            .property("write.data.path", "s3://other-bucket/data/t")
            .property("write.metadata.path", SRC + "/meta2")
            .property("comment", SRC + "/not-a-path-property")
            .commit(1, null, 100);

    MergeResult result = merge(source, null, 300);

    assertThat(result.metadata().properties())
        .containsEntry("write.data.path", DST + "/data")
        .containsEntry("write.metadata.path", DST + "/meta2")
        .containsEntry("comment", SRC + "/not-a-path-property")
        .containsEntry(ReplicaProperties.SOURCE_METADATA_FILE, "v9.metadata.json");
  }

  @Test
  void theReplicaKeepsItsMetadataFilesWhateverTheSourceDeletesAndRemembersTheSourcesSetting() {
    MetadataJson source =
        MetadataJson.table(2, SRC)
            .property(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "true")
            .property("write.metadata.previous-versions-max", "1")
            .commit(1, null, 100);

    TableMetadata replica = merge(source, null, 300).metadata();

    assertThat(replica.properties())
        .containsEntry(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "false")
        .containsEntry(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT, "true")
        .containsEntry("write.metadata.previous-versions-max", "1");
    // promoted, its writers keep every file too; a replica of it remembers the first source's
    TableMetadata promoted =
        PromotedMetadata.of(replica, DST + "/metadata/v1.metadata.json", 1, 400);
    assertThat(promoted.properties())
        .containsEntry(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "false")
        .containsEntry(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT, "true");
    assertThat(merge(MetadataJson.of(promoted), null, 500).metadata().properties())
        .containsEntry(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "false")
        .containsEntry(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT, "true");
    // a source that never set it: the replica sets Iceberg's default, and records nothing
    assertThat(
            merge(MetadataJson.table(2, SRC).commit(1, null, 100), null, 300)
                .metadata()
                .properties())
        .containsEntry(ReplicaProperties.METADATA_DELETE_AFTER_COMMIT, "false")
        .doesNotContainKey(ReplicaProperties.SOURCE_METADATA_DELETE_AFTER_COMMIT);
  }

  @Test
  void aManifestListOutsideTheMappingIsAnError() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    ((com.fasterxml.jackson.databind.node.ObjectNode) source.json.withArray("snapshots").get(0))
        .put("manifest-list", "s3://elsewhere/snap-1.avro");

    assertThatThrownBy(() -> merge(source, null, 300))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessageContaining("Cannot map path s3://elsewhere/snap-1.avro");
  }

  @Test
  void metadataLogListsTheReplicasOwnPreviousFiles() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    source.logMetadataFile(50, SRC + "/metadata/v1.metadata.json");
    TableMetadata replica = merge(source, null, 300).metadata();

    MergeResult result = merge(source.commit(2, 1L, 350), replica, 400);

    assertThat(result.metadata().metadataLog())
        .containsExactly(new TableMetadata.LogEntry(300, DST + "/metadata/v1.metadata.json"));
  }

  @Test
  void lastUpdatedMsIsNeverBehindTheSourceOrThePreviousReplica() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 10_000);
    TableMetadata replica = merge(source, null, 20_000).metadata();

    // a clock behind both: the merge keeps the latest
    assertThat(
            merge(source.copy().commit(2, 1L, 15_000), replica, 1_000).metadata().lastUpdatedMs())
        .isEqualTo(20_000);
    assertThat(
            merge(source.copy().commit(2, 1L, 30_000), replica, 1_000).metadata().lastUpdatedMs())
        .isEqualTo(30_000);
  }

  @Test
  void statisticsOfKeptSnapshotsAreMergedAndCopied() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    source
        .json
        .putArray("statistics")
        .addObject()
        .put("snapshot-id", 1)
        .put("statistics-path", SRC + "/metadata/stats-1.puffin")
        .put("file-size-in-bytes", 42)
        .put("file-footer-size-in-bytes", 10)
        .putArray("blob-metadata");
    TableMetadata replica = merge(source, null, 300).metadata();
    source.dropSnapshot(1);
    source
        .json
        .putArray("statistics")
        .addObject()
        .put("snapshot-id", 2)
        .put("statistics-path", SRC + "/metadata/stats-2.puffin")
        .put("file-size-in-bytes", 43)
        .put("file-footer-size-in-bytes", 10)
        .putArray("blob-metadata");

    MergeResult result = merge(source, replica, 400);

    List<String> paths = new ArrayList<>();
    result
        .metadata()
        .json()
        .get("statistics")
        .forEach(n -> paths.add(n.get("statistics-path").asText()));
    assertThat(paths)
        .containsExactly(DST + "/metadata/stats-1.puffin", DST + "/metadata/stats-2.puffin");
    assertThat(result.statisticsFiles())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.kind()).isEqualTo(FileKind.STATISTICS);
              assertThat(f.source()).isEqualTo(SRC + "/metadata/stats-2.puffin");
              assertThat(f.expectedSize()).isEqualTo(43);
            });
  }

  @Test
  void statisticsTheSourceRemovedOrReplacedForASnapshotItHoldsFollowTheSource() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    var statistics = source.json.putArray("partition-statistics");
    statistics
        .addObject()
        .put("snapshot-id", 1)
        .put("statistics-path", SRC + "/metadata/partition-stats-1.parquet")
        .put("file-size-in-bytes", 42);
    statistics
        .addObject()
        .put("snapshot-id", 2)
        .put("statistics-path", SRC + "/metadata/partition-stats-2.parquet")
        .put("file-size-in-bytes", 43);
    TableMetadata replica = merge(source, null, 300).metadata();
    // removed for snapshot 1, replaced for snapshot 2
    source
        .json
        .putArray("partition-statistics")
        .addObject()
        .put("snapshot-id", 2)
        .put("statistics-path", SRC + "/metadata/partition-stats-2b.parquet")
        .put("file-size-in-bytes", 44);

    MergeResult result = merge(source, replica, 400);

    List<String> paths = new ArrayList<>();
    result
        .metadata()
        .json()
        .get("partition-statistics")
        .forEach(n -> paths.add(n.get("statistics-path").asText()));
    assertThat(paths).containsExactly(DST + "/metadata/partition-stats-2b.parquet");
    assertThat(result.statisticsFiles())
        .extracting(f -> f.source())
        .containsExactly(SRC + "/metadata/partition-stats-2b.parquet");
  }

  @Test
  void v1ManifestsFieldIsMapped() {
    MetadataJson source = MetadataJson.table(1, SRC).commit(1, null, 100);
    var snapshot = source.json.withArray("snapshots").get(0);
    ((com.fasterxml.jackson.databind.node.ObjectNode) snapshot).remove("manifest-list");
    ((com.fasterxml.jackson.databind.node.ObjectNode) snapshot)
        .putArray("manifests")
        .add(SRC + "/metadata/m1.avro");

    MergeResult result = merge(source, null, 300);

    assertThat(result.metadata().snapshots().get(0).manifests())
        .containsExactly(DST + "/metadata/m1.avro");
    assertThat(result.addedSnapshots().get(0).sourceManifests())
        .containsExactly(SRC + "/metadata/m1.avro");
  }

  @Test
  void aRefTheReplicaDroppedStaysDroppedUntilTheSourceMovesIt() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    source.json.with("refs").putObject("audit").put("snapshot-id", 1).put("type", "tag");
    TableMetadata metadata = source.build();
    MergeRequest.Builder request =
        MergeRequest.builder()
            .source(metadata, SRC + "/metadata/v9.metadata.json")
            .targetLocation(DST)
            .mapping(TableLayout.mapping(metadata, DST, List.of()))
            .commitTimeMs(300)
            .expiredSnapshotIds(Set.of(1L))
            .droppedRefs(java.util.Map.of("audit", 1L));

    MergeResult kept = MetadataMerge.merge(request.build());
    assertThat(kept.metadata().refs()).containsOnlyKeys("main");
    assertThat(kept.metadata().snapshots()).extracting(s -> s.snapshotId()).containsExactly(2L);

    source.json.with("refs").with("audit").put("snapshot-id", 2);
    metadata = source.build();
    MergeResult moved =
        MetadataMerge.merge(request.source(metadata, SRC + "/metadata/v10.metadata.json").build());
    assertThat(moved.metadata().refs()).containsEntry("audit", 2L);
  }

  @Test
  void refsAreCarriedFromTheSource() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    source
        .json
        .with("refs")
        .putObject("audit")
        .put("snapshot-id", 1)
        .put("type", "tag")
        .put("max-ref-age-ms", 1000);

    MergeResult result = merge(source, null, 300);

    assertThat(result.metadata().refs()).containsEntry("audit", 1L).containsEntry("main", 2L);
    assertThat(result.metadata().json().get("refs").get("audit").get("max-ref-age-ms").asLong())
        .isEqualTo(1000);
  }

  @Test
  void upgradeFromV2ToV3IsCarried() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);
    TableMetadata replica = merge(source, null, 300).metadata();
    source.json.put("format-version", 3);
    source.json.put("next-row-id", 0);
    source.commit(2, 1L, 400);

    MergeResult result = merge(source, replica, 500);

    assertThat(result.metadata().formatVersion()).isEqualTo(3);
    assertThat(result.metadata().json().get("next-row-id").asLong()).isZero();
  }

  @Test
  void mappingUsesTheLongestPrefix() {
    PathMapping mapping =
        PathMapping.of(
            List.of(
                new PathMapping.Prefix("s3://a/t", "s3://b/t"),
                new PathMapping.Prefix("s3://a/t/data", "s3://c/d")));
    assertThat(mapping.map("s3://a/t/data/x.parquet")).isEqualTo("s3://c/d/x.parquet");
    assertThat(mapping.map("s3://a/t/metadata/x.avro")).isEqualTo("s3://b/t/metadata/x.avro");
  }

  @Test
  void aHeldSnapshotWhoseManifestListChangedIsAConflictWhateverTheMapping() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    TableMetadata replica = merge(source, null, 300).metadata();
    ((com.fasterxml.jackson.databind.node.ObjectNode) source.json.withArray("snapshots").get(0))
        .put("manifest-list", SRC + "/metadata/snap-1-rewritten.avro");

    assertThatThrownBy(() -> merge(source.commit(3, 2L, 350), replica, 400))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("Cannot merge snapshot 1 of table metadata")
        .hasMessageContaining(
            "(manifest-list "
                + DST
                + "/metadata/snap-1.avro vs "
                + DST
                + "/metadata/snap-1-rewritten.avro)");
  }

  @Test
  void aHeldSnapshotIsComparedAsMappedWhenTheMappingChanged() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100).commit(2, 1L, 200);
    TableMetadata metadata = source.build();
    // the replica was mapped with one more (unused) prefix: a mapping that is not equal
    PathMapping earlier =
        TableLayout.mapping(metadata, DST, List.of()).with("s3://unused/x", "s3://replica/x");
    TableMetadata replica =
        MetadataMerge.merge(
                MergeRequest.builder()
                    .source(metadata, SRC + "/metadata/v8.metadata.json")
                    .targetLocation(DST)
                    .mapping(earlier)
                    .commitTimeMs(300)
                    .build())
            .metadata();

    MergeResult same = merge(source.commit(3, 2L, 350), replica, 400);
    assertThat(same.addedSnapshots())
        .extracting(MergeResult.AddedSnapshot::snapshotId)
        .containsExactly(3L);

    PathMapping elsewhere = PathMapping.of(SRC, "s3://other/db/t");
    TableMetadata next = source.build();
    assertThatThrownBy(
            () ->
                MetadataMerge.merge(
                    MergeRequest.builder()
                        .source(next, SRC + "/metadata/v10.metadata.json")
                        .targetLocation(DST)
                        .mapping(elsewhere)
                        .commitTimeMs(500)
                        .replica(replica, DST + "/metadata/v1.metadata.json")
                        .build()))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("(manifest-list " + DST + "/metadata/snap-1.avro vs s3://other/");
  }
}
