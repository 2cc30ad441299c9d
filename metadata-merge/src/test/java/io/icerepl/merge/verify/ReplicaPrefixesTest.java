package io.icerepl.merge.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.state.ReplicaState;
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

  @Test
  void theTargetsOfPrefixesAUserMappedHoldTheReplicasFilesToo() {
    ReplicaState state =
        ReplicaState.empty()
            .withSourcePrefixes(List.of(new PathMapping.Prefix("/s/x", "/r/t/data/x-1")))
            .withMappedPrefixes(List.of(new PathMapping.Prefix("/s/t/data", "/data-root/t")));

    ReplicaPrefixes prefixes = ReplicaPrefixes.of("/r/t", state);

    assertThat(prefixes.contains("file:///data-root/t/category=x/a.parquet")).isTrue();
    assertThat(prefixes.contains("/r/t/data/x-1/b.parquet")).isTrue();
    assertThat(prefixes.contains("/data-root/t2/a.parquet")).isFalse();
    assertThat(prefixes.contains("/s/t/data/a.parquet")).isFalse();
    assertThat(ReplicaPrefixes.of("/r/t", ReplicaState.empty()).contains("/data-root/t/a.parquet"))
        .isFalse();
  }
}
