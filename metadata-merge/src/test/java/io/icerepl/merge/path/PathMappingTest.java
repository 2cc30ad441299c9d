package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PathMappingTest {

  @ParameterizedTest
  @ValueSource(strings = {"file:/data/src", "file:///data/src", "/data/src", "file:/data/src/"})
  void localFormsNameTheSameFile(String prefix) {
    PathMapping mapping = PathMapping.of(prefix, "file:/data/dst");
    assertThat(mapping.map("file:/data/src/data/a.parquet"))
        .isEqualTo("file:/data/dst/data/a.parquet");
    assertThat(mapping.map("file:///data/src/data/a.parquet"))
        .isEqualTo("file:/data/dst/data/a.parquet");
    assertThat(mapping.map("/data/src/data/a.parquet")).isEqualTo("file:/data/dst/data/a.parquet");
  }

  @Test
  void aSiblingWithTheSamePrefixIsOutside() {
    PathMapping mapping = PathMapping.of("s3://b/t", "s3://r/t");
    assertThatThrownBy(() -> mapping.map("s3://b/t2/data/a.parquet"))
        .isInstanceOf(PathOutsideMappingException.class)
        .hasMessage(
            "Cannot map path s3://b/t2/data/a.parquet: it is outside every mapped source prefix [s3://b/t]");
  }

  @Test
  void dotDotSegmentsAreRefused() {
    PathMapping mapping = PathMapping.of("s3://b/t", "s3://r/t");
    assertThatThrownBy(() -> mapping.map("s3://b/t/data/../../other/a.parquet"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("Cannot map path s3://b/t/data/../../other/a.parquet: it has a '..' segment");
  }

  @Test
  void thePrefixItselfMapsToTheTarget() {
    assertThat(PathMapping.of("s3://b/t/", "s3://r/t/").map("s3://b/t")).isEqualTo("s3://r/t");
  }

  @ParameterizedTest
  @ValueSource(strings = {"s3://b/t", "s3a://b/t", "s3n://b/t", "s3a://b/t/"})
  void theS3SchemesNameTheSameObjectAndTheTargetKeepsItsSpelling(String prefix) {
    PathMapping mapping = PathMapping.of(prefix, "s3a://r/t");
    assertThat(mapping.map("s3://b/t/data/a.parquet")).isEqualTo("s3a://r/t/data/a.parquet");
    assertThat(mapping.map("s3a://b/t/data/b.parquet")).isEqualTo("s3a://r/t/data/b.parquet");
    assertThat(mapping.map("s3n://b/t/data/c.parquet")).isEqualTo("s3a://r/t/data/c.parquet");
    assertThat(mapping.map("s3a://b/t")).isEqualTo("s3a://r/t");
    assertThat(mapping.covers("s3n://b/t/metadata/v1.metadata.json")).isTrue();
    // a scheme alias is not a sibling: another bucket or key stays outside
    assertThat(mapping.covers("s3a://b/t2/data/a.parquet")).isFalse();
    assertThat(mapping.covers("s3a://c/t/data/a.parquet")).isFalse();
    assertThat(mapping.covers("gs://b/t/data/a.parquet")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "abfss://src@acct.dfs.core.windows.net/wh/t",
        "wasbs://src@acct.blob.core.windows.net/wh/t/",
        "abfs://src@acct.dfs.core.windows.net/wh/t"
      })
  void theAzureSpellingsNameTheSameObjectAndMapAcrossStores(String prefix) {
    PathMapping toS3 = PathMapping.of(prefix, "s3://replica/wh/t");
    assertThat(toS3.map("wasbs://src@acct.blob.core.windows.net/wh/t/data/a.parquet"))
        .isEqualTo("s3://replica/wh/t/data/a.parquet");
    assertThat(toS3.map("abfss://src@acct.dfs.core.windows.net/wh/t/metadata/v1.metadata.json"))
        .isEqualTo("s3://replica/wh/t/metadata/v1.metadata.json");
    assertThat(toS3.covers("abfss://src@other.dfs.core.windows.net/wh/t/data/a.parquet")).isFalse();
    assertThat(toS3.covers("abfss://dst@acct.dfs.core.windows.net/wh/t/data/a.parquet")).isFalse();
  }

  @Test
  void aPathMapsFromS3ToAzureAndGcsKeepingTheTargetsSpelling() {
    PathMapping mapping =
        PathMapping.of(
            List.of(
                new PathMapping.Prefix(
                    "s3://lake/wh/t", "wasbs://dr@acct.blob.core.windows.net/wh/t"),
                new PathMapping.Prefix("s3://lake/wh/t/data", "gs://dr-data/t/data")));
    assertThat(mapping.map("s3a://lake/wh/t/metadata/snap-1.avro"))
        .isEqualTo("wasbs://dr@acct.blob.core.windows.net/wh/t/metadata/snap-1.avro");
    assertThat(mapping.map("s3://lake/wh/t/data/x=1/a.parquet"))
        .isEqualTo("gs://dr-data/t/data/x=1/a.parquet");
  }

  @Test
  void anS3PrefixIsAddedOnceWhicheverSchemeNamesIt() {
    PathMapping mapping = PathMapping.of("s3://b/t", "s3://r/t").with("s3a://b/t/", "s3://r/x");
    assertThat(mapping.prefixes()).hasSize(1);
    assertThat(mapping.map("s3a://b/t/data/a.parquet")).isEqualTo("s3://r/t/data/a.parquet");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "s3://b/t/./a.parquet",
        "s3://b/t/data/.",
        "s3://b/t/data/..",
        "file:/data/src/./a.parquet",
        "file:///data/src/../src/a.parquet",
        "file://localhost/data/src/./a",
        "/data/src/data/../a",
        "./a",
        "../a"
      })
  void everyDotSegmentIsRefusedWherever(String path) {
    PathMapping mapping =
        PathMapping.of(
            List.of(
                new PathMapping.Prefix("s3://b/t", "s3://r/t"),
                new PathMapping.Prefix("file:/data/src", "file:/data/dst"),
                new PathMapping.Prefix("", "x")));
    assertThatThrownBy(() -> mapping.map(path))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith("Cannot map path " + path + ": it has a '.");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "s3://b/t/.hidden/a.parquet",
        "s3://b/t/a..b/v1.metadata.json",
        "s3://b/t/.../a",
        "s3://b/t/data/x.",
        "s3://b/t/data/..x",
        "s3://b/t/snap-1.avro"
      })
  void dotsInsideNamesAreNotSegments(String path) {
    PathMapping mapping = PathMapping.of("s3://b/t", "s3://r/t");
    assertThat(mapping.map(path)).isEqualTo("s3://r/t" + path.substring("s3://b/t".length()));
  }

  @Test
  void theLongestSourcePrefixWinsInAnyOrderGiven() {
    List<PathMapping.Prefix> prefixes =
        List.of(
            new PathMapping.Prefix("s3://b/t", "s3://r/t"),
            new PathMapping.Prefix("s3://b/t/data", "s3://other/data/"),
            new PathMapping.Prefix("s3://b", "s3://r/b"));
    for (List<PathMapping.Prefix> order :
        List.of(prefixes, List.of(prefixes.get(2), prefixes.get(1), prefixes.get(0)))) {
      PathMapping mapping = PathMapping.of(order);
      assertThat(mapping.map("s3://b/t/data/a.parquet")).isEqualTo("s3://other/data/a.parquet");
      assertThat(mapping.map("s3://b/t/data")).isEqualTo("s3://other/data");
      assertThat(mapping.map("s3://b/t/metadata/v1.metadata.json"))
          .isEqualTo("s3://r/t/metadata/v1.metadata.json");
      assertThat(mapping.map("s3://b/t2/a")).isEqualTo("s3://r/b/t2/a");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"file:/p/src", "file:///p/src", "/p/src", "file://localhost/p/src"})
  void everyLocalSpellingMapsAndCompares(String source) {
    PathMapping mapping = PathMapping.of("/p/src/", "file:///p/dst");
    assertThat(mapping.map(source + "/m/snap.avro")).isEqualTo("file:///p/dst/m/snap.avro");
    assertThat(mapping.map(source)).isEqualTo("file:///p/dst");
    assertThat(mapping.covers(source + "/m")).isTrue();
    assertThat(PathMapping.canonical(source)).isEqualTo("/p/src");
    assertThat(PathMapping.sameFile(source + "/a", "file:/p/src/a")).isTrue();
    assertThat(PathMapping.sameFile(source + "/a", "file:/p/src/ab")).isFalse();
    assertThat(PathMapping.sameFile(source + "/a", "s3://p/src/a")).isFalse();
  }

  @Test
  void aPathOutsideEveryPrefixIsRefusedEvenWhenItStartsLikeOne() {
    PathMapping mapping = PathMapping.of("file:/p/src", "file:/p/dst");
    for (String path : List.of("file:/p/srcx/a", "file:/p/sr", "s3://p/src/a", "file:/p")) {
      assertThatThrownBy(() -> mapping.map(path))
          .isInstanceOf(PathOutsideMappingException.class)
          .hasMessageContaining(path);
    }
  }

  @Test
  void mappingsWithTheSamePrefixesInTheSameOrderAreEqual() {
    PathMapping one = PathMapping.of("s3://b/t", "s3://r/t").with("s3://x/y", "s3://r/y");
    PathMapping same = PathMapping.of("s3://b/t", "s3://r/t").with("s3://x/y", "s3://r/y");
    PathMapping otherTarget = PathMapping.of("s3://b/t", "s3://r/t").with("s3://x/y", "s3://q/y");

    assertThat(one).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(one).isEqualTo(same); // asked again, once remembered
    assertThat(same).isEqualTo(one);
    assertThat(one).isNotEqualTo(otherTarget);
    assertThat(otherTarget).isNotEqualTo(one);
    assertThat(one).isNotEqualTo(PathMapping.of("s3://b/t", "s3://r/t"));
    assertThat(one.equals(null)).isFalse();
    assertThat(PathMapping.of("s3://b/t", "s3://r/t").equals(null)).isFalse();
    assertThat(one.apply("s3://x/y/a")).isEqualTo(same.map("s3://x/y/a")).isEqualTo("s3://r/y/a");
  }
}
