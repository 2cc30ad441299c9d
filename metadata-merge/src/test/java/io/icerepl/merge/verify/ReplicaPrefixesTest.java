package io.icerepl.merge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.path.PathMapping;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaPrefixesTest {

  @Test
  void pathsAreInsideOnlyUnderTheLocationOrAMappedFolderWithoutDotSegments() {
    ReplicaPrefixes prefixes =
        ReplicaPrefixes.of("file:/r/t", List.of(new PathMapping.Prefix("/s/x", "/r/t-x")));

    assertThat(prefixes.contains("/r/t/data/a.parquet")).isTrue();
    assertThat(prefixes.contains("file:///r/t-x/b.parquet")).isTrue();
    assertThat(prefixes.contains("/r/t2/data/a.parquet")).isFalse();
    assertThat(prefixes.contains("/r/t/../s/data/a.parquet")).isFalse();
    assertThat(prefixes.contains("/s/x/b.parquet")).isFalse();
  }
}
