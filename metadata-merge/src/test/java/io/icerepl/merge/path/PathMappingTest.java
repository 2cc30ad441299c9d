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
}
