package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaDomainTest {
  private final ReplicaDomain domain =
      ReplicaDomain.of(
          "s3://dr/wh/a", List.of(new PathMapping.Prefix("s3://src/ext", "s3://shared/ext-a")));

  @Test
  void theReplicasLocationAndTheExplicitMapsTargetsInEverySpellingAreInside() {
    assertThat(domain.contains("s3://dr/wh/a/data/f.parquet")).isTrue();
    assertThat(domain.contains("s3a://dr/wh/a/metadata/v2.metadata.json")).isTrue();
    assertThat(domain.contains("s3://shared/ext-a/f.parquet")).isTrue();
    assertThat(ReplicaDomain.of("/dr/a").contains("file:///dr/a/data/f.parquet")).isTrue();
  }

  @Test
  void theReplicaBesideItAndAnyClimbOutAreOutside() {
    assertThat(domain.contains("s3://dr/wh/b/metadata/v2.metadata.json")).isFalse();
    assertThat(domain.contains("s3://dr/wh/ab/data/f.parquet")).isFalse();
    assertThat(domain.contains("s3://dr/wh/a/../b/data/f.parquet")).isFalse();
    assertThat(domain.contains("s3://dr/wh/a/./data/f.parquet")).isFalse();
    assertThat(domain.contains("s3://shared/ext-b/f.parquet")).isFalse();
    assertThat(domain.outside(List.of("s3://dr/wh/a/x", "s3://dr/wh/b/x")))
        .containsExactly("s3://dr/wh/b/x");
  }

  @Test
  void aMappingPlacingFilesOutsideIsRefusedNamingThePair() {
    PathMapping inside = PathMapping.of("s3://src/wh/a", "s3://dr/wh/a");
    assertThat(domain.confine(inside).mapping()).isSameAs(inside);

    assertThatThrownBy(
            () ->
                domain.confine(
                    PathMapping.of(
                        List.of(
                            new PathMapping.Prefix("s3://src/wh/a", "s3://dr/wh/a"),
                            new PathMapping.Prefix("s3://src", "s3://dr")))))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot place files of s3://src under s3://dr: it is outside replica s3://dr/wh/a and"
                + " every explicit map's target [s3://shared/ext-a]; only an explicit --map may"
                + " place files elsewhere");
  }

  @Test
  void aFileAboutToBePlacedOutsideIsRefusedNamingTableAndFile() {
    ReplicaDomain.Placement placement =
        ReplicaDomain.of("/dr/a").confine(PathMapping.of("/src/a", "/dr/a"));
    placement.check("db.a", "/src/a/data/f.parquet", "/dr/a/data/f.parquet");

    assertThatThrownBy(
            () ->
                placement.check(
                    "db.a", "/src/b/metadata/v2.metadata.json", "/dr/b/metadata/v2.metadata.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot copy file /src/b/metadata/v2.metadata.json of table db.a to"
                + " /dr/b/metadata/v2.metadata.json: it is outside replica /dr/a");
  }

  @Test
  void deletesOutsideAreRefusedBeforeAny() {
    ReplicaDomain.of("/dr/a").checkDeletes(List.of("/dr/a/data/f.parquet"));

    assertThatThrownBy(
            () ->
                ReplicaDomain.of("/dr/a")
                    .checkDeletes(List.of("/dr/a/data/f.parquet", "/dr/b/data/g.parquet")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot delete /dr/b/data/g.parquet: it is outside replica /dr/a");
  }

  /**
   * The names the replica's metadata owns (ReplicaLayout's: versions, the hint, the state, Batch
   * Operations jobs, the default lease prefix) take no copy; manifests, manifest lists and
   * statistics files beside them, and a look-alike name outside the metadata folder, do.
   */
  @Test
  void aFileAboutToLandOnANameTheReplicasMetadataOwnsIsRefused() {
    ReplicaDomain domain = ReplicaDomain.of("s3://dr/wh/a");
    assertThat(
            List.of(
                "s3://dr/wh/a/metadata/v9.metadata.json",
                "s3a://dr/wh/a/metadata/00003-4f2c.gz.metadata.json",
                "s3://dr/wh/a/metadata/version-hint.text",
                "s3://dr/wh/a/metadata/.replicator-state.json",
                "s3://dr/wh/a/metadata/.replicator-batch/t1/manifest.csv",
                "s3://dr/wh/a/data/.replicator-locks/0af3"))
        .allMatch(domain::ownedByMetadata);
    assertThat(
            List.of(
                "s3://dr/wh/a/metadata/snap-1-1-4f2c.avro",
                "s3://dr/wh/a/metadata/4f2c-m0.avro",
                "s3://dr/wh/a/metadata/1-stats.puffin",
                "s3://dr/wh/a/data/v9.metadata.json",
                "s3://dr/wh/a/metadata"))
        .noneMatch(domain::ownedByMetadata);

    ReplicaDomain.Placement placement =
        domain.confine(PathMapping.of("s3://src/wh/a", "s3://dr/wh/a"));
    placement.check(
        "db.a",
        "manifest",
        "s3://src/wh/a/metadata/4f2c-m0.avro",
        "s3://dr/wh/a/metadata/4f2c-m0.avro");
    assertThatThrownBy(
            () ->
                placement.check(
                    "db.a",
                    "data file",
                    "s3://src/wh/a/metadata/v9.metadata.json",
                    "s3://dr/wh/a/metadata/v9.metadata.json"))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot copy data file s3://src/wh/a/metadata/v9.metadata.json of table db.a: it would"
                + " land on s3://dr/wh/a/metadata/v9.metadata.json, a name the replica's metadata"
                + " owns");
  }
}
