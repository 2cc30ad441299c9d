package io.icerepl.copier.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GcsLocationTest {
  @Test
  void aPathIsItsBucketAndTheRestItsName() {
    GcsLocation at = GcsLocation.parse("gs://bucket/warehouse/ns/t/data/part-0.parquet");

    assertThat(at.bucket()).isEqualTo("bucket");
    assertThat(at.name()).isEqualTo("warehouse/ns/t/data/part-0.parquet");
    assertThat(at).hasToString("gs://bucket/warehouse/ns/t/data/part-0.parquet");
  }

  @Test
  void aFolderIsTheNamePrefixUpToASlash() {
    assertThat(GcsLocation.parse("gs://bucket/t/metadata").folderPrefix()).isEqualTo("t/metadata/");
    assertThat(GcsLocation.parse("gs://bucket/t/metadata/").folderPrefix())
        .isEqualTo("t/metadata/");
    assertThat(GcsLocation.parse("gs://bucket").folderPrefix()).isEmpty();
    assertThat(GcsLocation.parse("gs://bucket/").folderPrefix()).isEmpty();
  }

  @Test
  void anythingElseIsRefusedByName() {
    assertThatThrownBy(() -> GcsLocation.parse("s3://bucket/key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://bucket/key")
        .hasMessageContaining("not gs://bucket/name");
    assertThatThrownBy(() -> GcsLocation.parse("gs:///key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gs:///key")
        .hasMessageContaining("no bucket");
    assertThatThrownBy(() -> GcsLocation.parse("/local/path"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/local/path");
  }
}
