package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.PathOutsideMappingException;
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

  @Test
  void anS3PrefixIsAddedOnceWhicheverSchemeNamesIt() {
    PathMapping mapping = PathMapping.of("s3://b/t", "s3://r/t").with("s3a://b/t/", "s3://r/x");
    assertThat(mapping.prefixes()).hasSize(1);
    assertThat(mapping.map("s3a://b/t/data/a.parquet")).isEqualTo("s3://r/t/data/a.parquet");
  }
}
