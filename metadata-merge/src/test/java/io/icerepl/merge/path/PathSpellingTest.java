package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PathSpellingTest {

  @Test
  void aLocationTakesTheExistingSpellingOfTheSamePlace() {
    assertThat(PathSpelling.as("file:///p/t", "file:/p/t")).isEqualTo("file:/p/t");
    assertThat(PathSpelling.as("/p/t/", "file:/p/t")).isEqualTo("file:/p/t");
    assertThat(PathSpelling.as("file:/p/t", "file:///p/t/")).isEqualTo("file:///p/t");
    assertThat(PathSpelling.as("s3://b/t", "s3a://b/t")).isEqualTo("s3a://b/t");
    assertThat(PathSpelling.as("s3a://b/t/", "s3://b/t")).isEqualTo("s3://b/t");
  }

  @Test
  void anotherPlaceKeepsTheGivenSpelling() {
    assertThat(PathSpelling.as("file:///p/t", "file:/p/t2")).isEqualTo("file:///p/t");
    assertThat(PathSpelling.as("s3://b/t", "s3a://c/t")).isEqualTo("s3://b/t");
    assertThat(PathSpelling.as("s3://b/t", "gs://b/t")).isEqualTo("s3://b/t");
    assertThat(PathSpelling.as("s3://b/t", null)).isEqualTo("s3://b/t");
  }

  @Test
  void thePrefixAsAFileUnderItSpellsIt() {
    assertThat(PathSpelling.prefixIn("file:///p/t", "file:/p/t/data/a.parquet"))
        .contains("file:/p/t");
    assertThat(PathSpelling.prefixIn("file:/p/t/", "/p/t/data/a.parquet")).contains("/p/t");
    assertThat(PathSpelling.prefixIn("s3://b/t", "s3a://b/t/data/a.parquet")).contains("s3a://b/t");
    assertThat(PathSpelling.prefixIn("s3://b/t", "s3://b/t2/data/a.parquet")).isEmpty();
    assertThat(PathSpelling.prefixIn("s3://b/t", "s3://b/t")).isEmpty();
  }
}
