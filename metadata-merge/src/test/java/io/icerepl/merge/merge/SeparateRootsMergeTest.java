package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.SourcePrefixes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A replica whose data (or manifests) the user's {@code --map} places under another root than its
 * location carries that root in {@code write.data.path} / {@code write.metadata.path}, so an engine
 * writing into it once promoted writes there too.
 */
class SeparateRootsMergeTest {
  private static final String SRC = "s3://source/db/t";
  private static final String DST = "s3://replica/db/t";
  private static final String DATA_ROOT = "s3://replica-data/db/t";
  private static final String META_ROOT = "s3://replica-manifests/db/t";

  private static TableMetadata merged(MetadataJson source, PathMapping.Prefix... explicit) {
    TableMetadata metadata = source.build();
    String file = SRC + "/metadata/v9.metadata.json";
    PathMapping mapping =
        SourcePrefixes.of(DST, List.of(explicit), List.of(), List.of())
            .learn(metadata, file)
            .learnFolderOf(file)
            .mapping();
    return MetadataMerge.merge(
            MergeRequest.builder()
                .source(metadata, file)
                .targetLocation(DST)
                .mapping(mapping)
                .commitTimeMs(300)
                .build())
        .metadata();
  }

  private static PathMapping.Prefix map(String source, String target) {
    return new PathMapping.Prefix(source, target);
  }

  @Test
  void aWriteDataPathOutsideTheLocationMappedToADataRootBecomesTheReplicasWriteDataPath() {
    String sourceDataRoot = "s3://source/data-root/t";
    MetadataJson source =
        MetadataJson.table(2, SRC).property("write.data.path", sourceDataRoot).commit(1, null, 100);

    Map<String, String> properties = merged(source, map(sourceDataRoot, DATA_ROOT)).properties();

    assertThat(properties)
        .containsEntry("write.data.path", DATA_ROOT)
        .doesNotContainKey("write.metadata.path");
  }

  @Test
  void theDefaultDataFolderMappedToADataRootIsDeclaredAsTheReplicasWriteDataPath() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);

    TableMetadata replica = merged(source, map(SRC + "/data", DATA_ROOT));

    assertThat(replica.location()).isEqualTo(DST);
    assertThat(replica.properties())
        .containsEntry("write.data.path", DATA_ROOT)
        .doesNotContainKey("write.metadata.path");
    // the manifest lists stay under the replica's own metadata folder
    assertThat(replica.snapshots().get(0).manifestList().orElseThrow())
        .startsWith(DST + "/metadata/");
  }

  @Test
  void theDefaultMetadataFolderMappedElsewhereIsDeclaredAsTheReplicasWriteMetadataPath() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);

    TableMetadata replica =
        merged(source, map(SRC + "/data", DATA_ROOT), map(SRC + "/metadata", META_ROOT));

    assertThat(replica.properties())
        .containsEntry("write.data.path", DATA_ROOT)
        .containsEntry("write.metadata.path", META_ROOT);
    assertThat(replica.snapshots().get(0).manifestList().orElseThrow()).startsWith(META_ROOT + "/");
  }

  @Test
  void aDataRootInAnotherSpellingOfTheReplicasOwnDataFolderDeclaresNothing() {
    String src = "file:/wh/src/t";
    String dst = "file:///wh/dst/t";
    MetadataJson source = MetadataJson.table(2, src).commit(1, null, 100);
    TableMetadata metadata = source.build();
    String file = src + "/metadata/v9.metadata.json";
    PathMapping mapping =
        SourcePrefixes.of(dst, List.of(map(src + "/data", "/wh/dst/t/data")), List.of(), List.of())
            .learn(metadata, file)
            .mapping();

    TableMetadata replica =
        MetadataMerge.merge(
                MergeRequest.builder()
                    .source(metadata, file)
                    .targetLocation(dst)
                    .mapping(mapping)
                    .commitTimeMs(300)
                    .build())
            .metadata();

    assertThat(replica.properties())
        .doesNotContainKey("write.data.path")
        .doesNotContainKey("write.metadata.path");
  }

  @Test
  void withoutAMapTheReplicaGetsNoWritePathTheSourceDidNotHave() {
    MetadataJson source = MetadataJson.table(2, SRC).commit(1, null, 100);

    assertThat(merged(source).properties())
        .doesNotContainKey("write.data.path")
        .doesNotContainKey("write.metadata.path");
  }

  @Test
  void writePathsThatLandInTheReplicasOwnFoldersAreKeptMappedAndNothingIsAdded() {
    MetadataJson source =
        MetadataJson.table(2, SRC)
            .property("write.data.path", "s3://source/data-root/t")
            .commit(1, null, 100);

    Map<String, String> properties =
        merged(source, map("s3://source/data-root/t", DST + "/data")).properties();

    assertThat(properties)
        .containsEntry("write.data.path", DST + "/data")
        .doesNotContainKey("write.metadata.path");
    // the source's own default, spelled out: kept as the source had it, mapped
    MetadataJson spelledOut =
        MetadataJson.table(2, SRC).property("write.data.path", SRC + "/data").commit(1, null, 100);
    assertThat(merged(spelledOut).properties())
        .containsEntry("write.data.path", DST + "/data")
        .doesNotContainKey("write.metadata.path");
  }

  @Test
  void theSourcesOwnWriteDataPathWinsOverItsUnusedDefaultFolder() {
    // files the table wrote before it set write.data.path go to the data root; new ones are
    // written where the source's write.data.path maps
    String sourceDataRoot = "s3://source/data-root/t";
    MetadataJson source =
        MetadataJson.table(2, SRC).property("write.data.path", sourceDataRoot).commit(1, null, 100);

    Map<String, String> properties =
        merged(source, map(SRC + "/data", DATA_ROOT), map(sourceDataRoot, DATA_ROOT + "/new"))
            .properties();

    assertThat(properties).containsEntry("write.data.path", DATA_ROOT + "/new");
  }

  @Test
  void aFolderMappedElsewhereInsideTheReplicaIsNoRootOfItsOwn() {
    // a location the table moved to maps to a folder of the replica's: its data and metadata
    // folders land under it, inside the replica, and the replica's writers keep their defaults
    String moved = "s3://source/moved/t";
    MetadataJson before = MetadataJson.table(2, SRC).commit(1, null, 100);
    MetadataJson after = MetadataJson.table(2, moved).commit(1, null, 100);
    String file = moved + "/metadata/v9.metadata.json";
    PathMapping mapping =
        SourcePrefixes.of(DST, List.of(), List.of(), List.of())
            .learn(before.build(), SRC + "/metadata/v8.metadata.json")
            .learn(after.build(), file)
            .mapping();
    assertThat(mapping.map(moved + "/data/f.parquet")).startsWith(DST + "/data/");

    TableMetadata replica =
        MetadataMerge.merge(
                MergeRequest.builder()
                    .source(after.build(), file)
                    .targetLocation(DST)
                    .mapping(mapping)
                    .commitTimeMs(300)
                    .build())
            .metadata();

    assertThat(replica.properties())
        .doesNotContainKey("write.data.path")
        .doesNotContainKey("write.metadata.path");
    // a user's map to a folder inside the replica is no root either
    assertThat(
            merged(
                    MetadataJson.table(2, SRC).commit(1, null, 100),
                    map(SRC + "/data", DST + "/bulk"))
                .properties())
        .doesNotContainKey("write.data.path");
  }
}
