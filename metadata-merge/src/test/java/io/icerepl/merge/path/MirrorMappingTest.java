package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MirrorMappingTest {

  @Test
  void locationsEndingInTheSameRelativePathMirrorTheirRoots() {
    Optional<MirrorMapping.Inferred> mirror =
        MirrorMapping.infer("s3://a/wh/db/t", "s3://b/wh/db/t", List.of());

    assertThat(mirror).isPresent();
    assertThat(mirror.get().prefixes()).containsExactly(new PathMapping.Prefix("s3://a", "s3://b"));
    assertThat(mirror.get().commonPath()).isEqualTo("wh/db/t");
    assertThat(PathMapping.of(mirror.get().prefixes()).map("s3a://a/ext/data/f.parquet"))
        .isEqualTo("s3://b/ext/data/f.parquet");
  }

  @Test
  void onlyTheCommonTailIsStrippedAndEachSideKeepsItsSpelling() {
    assertThat(
            MirrorMapping.infer("s3a://a/src/wh/t/", "file:///tmp/dst/wh/t", List.of())
                .map(MirrorMapping.Inferred::prefixes))
        .contains(List.of(new PathMapping.Prefix("s3a://a/src", "file:///tmp/dst")));
    assertThat(
            MirrorMapping.infer("/data/src/orders", "/data/dst/orders", List.of())
                .map(MirrorMapping.Inferred::prefixes))
        .contains(List.of(new PathMapping.Prefix("/data/src", "/data/dst")));
  }

  @Test
  void noMirrorWithoutACommonTailOrWhenTheRootsOverlap() {
    assertThat(MirrorMapping.infer("s3://a/wh/orders", "s3://b/replica", List.of())).isEmpty();
    // the replica's root holds the source's: the source's tree would be mirrored into itself
    assertThat(MirrorMapping.infer("/data/t", "/data/replicas/t", List.of())).isEmpty();
    // a local mirror never takes the machine's root
    assertThat(MirrorMapping.infer("/t", "/x/t", List.of())).isEmpty();
  }

  @Test
  void allowedRootsCutTheMirrorSoItNeverReachesAFileConfinementRefuses() {
    // the allowed root holds the source root: the whole mirror
    assertThat(
            MirrorMapping.infer("s3://a/wh/db/t", "s3://b/wh/db/t", List.of("s3://a/"))
                .map(MirrorMapping.Inferred::prefixes))
        .contains(List.of(new PathMapping.Prefix("s3://a", "s3://b")));
    // allowed roots under the source root: each mirrored on its own, others left out
    Optional<MirrorMapping.Inferred> cut =
        MirrorMapping.infer(
            "s3://a/wh/db/t",
            "s3://b/wh/db/t",
            List.of("s3://a/wh/db/", "s3://a/ext", "s3://elsewhere/x"));
    assertThat(cut.map(MirrorMapping.Inferred::prefixes))
        .contains(
            List.of(
                new PathMapping.Prefix("s3://a/wh/db/", "s3://b/wh/db"),
                new PathMapping.Prefix("s3://a/ext", "s3://b/ext")));
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
            .withMirror(List.of(new PathMapping.Prefix("s3://a", "s3://b")));

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
        .isEqualTo("s3://b/undeclared/f.parquet");
    assertThat(learned.mapping().map("s3://a/wh/t/data/f.parquet"))
        .isEqualTo(replica + "/data/f.parquet");
  }
}
