package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MirrorMappingTest {

  @Test
  void filesUnderTheUndeclaredRootKeepTheirLayoutInTheRootsFolderInsideTheReplica() {
    Optional<MirrorMapping.Inferred> mirror =
        MirrorMapping.infer("s3://a/wh/db/t", "s3://b/wh/db/t", List.of());

    assertThat(mirror).isPresent();
    String folder = SourcePrefixes.replicaFolderFor("s3://b/wh/db/t", "s3://a");
    assertThat(folder).matches("s3://b/wh/db/t/data/a-[0-9a-f]{8}");
    assertThat(mirror.get().prefixes()).containsExactly(new PathMapping.Prefix("s3://a", folder));
    assertThat(mirror.get().commonPath()).isEqualTo("wh/db/t");
    assertThat(PathMapping.of(mirror.get().prefixes()).map("s3a://a/ext/data/f.parquet"))
        .isEqualTo(folder + "/ext/data/f.parquet");
    // another table's files beside the source land in this replica, not in the replica beside it
    assertThat(
            PathMapping.of(mirror.get().prefixes()).map("s3://a/wh/db/u/metadata/v2.metadata.json"))
        .isEqualTo(folder + "/wh/db/u/metadata/v2.metadata.json")
        .startsWith("s3://b/wh/db/t/");
  }

  @Test
  void theSameRootAlwaysGetsTheSameFolderAndTwoRootsNeverShareOne() {
    assertThat(MirrorMapping.infer("s3://a/wh/t", "s3://b/wh/t", List.of()))
        .isEqualTo(MirrorMapping.infer("s3://a/wh/t", "s3://b/wh/t", List.of()));
    String one =
        MirrorMapping.infer("s3://a/x/wh/t", "s3://b/wh/t", List.of())
            .get()
            .prefixes()
            .get(0)
            .target();
    String other =
        MirrorMapping.infer("s3://a-x/wh/t", "s3://b/wh/t", List.of())
            .get()
            .prefixes()
            .get(0)
            .target();
    assertThat(one).startsWith("s3://b/wh/t/data/").isNotEqualTo(other);
    assertThat(other).startsWith("s3://b/wh/t/data/");
  }

  @Test
  void onlyTheCommonTailIsStrippedAndEachSideKeepsItsSpelling() {
    assertThat(
            MirrorMapping.infer("s3a://a/src/wh/t/", "file:///tmp/dst/wh/t", List.of())
                .map(MirrorMapping.Inferred::prefixes))
        .contains(
            List.of(
                new PathMapping.Prefix(
                    "s3a://a/src",
                    SourcePrefixes.replicaFolderFor("file:///tmp/dst/wh/t", "s3a://a/src"))));
    assertThat(
            MirrorMapping.infer("/data/src/orders", "/data/dst/orders", List.of())
                .map(MirrorMapping.Inferred::prefixes))
        .contains(
            List.of(
                new PathMapping.Prefix(
                    "/data/src",
                    SourcePrefixes.replicaFolderFor("/data/dst/orders", "/data/src"))));
  }

  @Test
  void noMirrorWithoutACommonTailOrWhenTheRootHoldsTheReplica() {
    assertThat(MirrorMapping.infer("s3://a/wh/orders", "s3://b/replica", List.of())).isEmpty();
    // the source's root holds the replica: the replica's tree would be mirrored into itself
    assertThat(MirrorMapping.infer("/data/t", "/data/replicas/t", List.of())).isEmpty();
    // a local mirror never takes the machine's root
    assertThat(MirrorMapping.infer("/t", "/x/t", List.of())).isEmpty();
  }

  @Test
  void allowedRootsCutTheMirrorSoItNeverReachesAFileConfinementRefuses() {
    String folder = SourcePrefixes.replicaFolderFor("s3://b/wh/db/t", "s3://a");
    // the allowed root holds the source root: the whole mirror
    assertThat(
            MirrorMapping.infer("s3://a/wh/db/t", "s3://b/wh/db/t", List.of("s3://a/"))
                .map(MirrorMapping.Inferred::prefixes))
        .contains(List.of(new PathMapping.Prefix("s3://a", folder)));
    // allowed roots under the source root: each mirrored on its own, others left out
    Optional<MirrorMapping.Inferred> cut =
        MirrorMapping.infer(
            "s3://a/wh/db/t",
            "s3://b/wh/db/t",
            List.of("s3://a/wh/db/", "s3://a/ext", "s3://elsewhere/x"));
    assertThat(cut.map(MirrorMapping.Inferred::prefixes))
        .contains(
            List.of(
                new PathMapping.Prefix("s3://a/wh/db/", folder + "/wh/db"),
                new PathMapping.Prefix("s3://a/ext", folder + "/ext")));
    PathMapping mapping = PathMapping.of(cut.get().prefixes());
    assertThat(mapping.covers("s3://a/ext/data/f.parquet")).isTrue();
    assertThat(mapping.covers("s3://a/secret/f.parquet")).isFalse();
    // no allowed root under the source root: no mirror at all
    assertThat(MirrorMapping.infer("s3://a/wh/t", "s3://b/wh/t", List.of("s3://c/"))).isEmpty();
  }

  @Test
  void declaredPrefixesKeepTheirOwnFoldersAndTheMirrorMapsOnlyWhatNothingDeclares() {
    String replica = "s3://b/wh/t";
    SourcePrefixes prefixes =
        SourcePrefixes.of(
                replica,
                List.of(),
                List.of(),
                List.of(new PathMapping.Prefix("s3://a/wh/t", replica)))
            .withMirror(MirrorMapping.infer("s3://a/wh/t", replica, List.of()).get().prefixes());

    SourcePrefixes learned =
        prefixes.learn(
            SourcePrefixesTest.version(
                "s3://a/wh/t", java.util.Map.of("write.data.path", "s3://a/d")),
            "v2.metadata.json");

    assertThat(learned.learned())
        .containsExactly(
            new PathMapping.Prefix("s3://a/wh/t", replica),
            new PathMapping.Prefix(
                "s3://a/d", SourcePrefixes.replicaFolderFor(replica, "s3://a/d")));
    assertThat(learned.mapping().map("s3://a/d/f.parquet")).startsWith(replica + "/data/a-d-");
    assertThat(learned.mapping().map("s3://a/undeclared/f.parquet"))
        .isEqualTo(SourcePrefixes.replicaFolderFor(replica, "s3://a") + "/undeclared/f.parquet");
    assertThat(learned.mapping().map("s3://a/wh/t/data/f.parquet"))
        .isEqualTo(replica + "/data/f.parquet");
  }

  /**
   * A replica an earlier release made recorded the mirror of the two roots ({@code s3://a ->
   * s3://b}), beside the replica: refused with the {@code --map} pairs to give, and kept as it was
   * once the user maps it explicitly.
   */
  @Test
  void aMirrorAnEarlierReleaseRecordedOutsideTheReplicaTakesAnExplicitMap() {
    String replica = "s3://b/wh/t";
    List<PathMapping.Prefix> recorded = List.of(new PathMapping.Prefix("s3://a", "s3://b"));

    assertThatThrownBy(
            () -> SourcePrefixes.of(replica, List.of(), List.of(), List.of()).withMirror(recorded))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot place files of s3://a under s3://b as the mirror mapping in the state of"
                + " replica s3://b/wh/t records (an earlier release wrote it): it is outside the"
                + " replica's location. Say where they go with --map s3://a=s3://b (where earlier"
                + " runs put them) or --map s3://a="
                + SourcePrefixes.replicaFolderFor(replica, "s3://a")
                + " (inside the replica)");

    PathMapping mapped =
        SourcePrefixes.of(replica, recorded, List.of(), List.of()).withMirror(recorded).mapping();
    assertThat(mapped.map("s3://a/ext/f.parquet")).isEqualTo("s3://b/ext/f.parquet");
  }
}
