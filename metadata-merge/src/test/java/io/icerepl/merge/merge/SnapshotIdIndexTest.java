package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SnapshotIdIndexTest {
  @Test
  void findsEveryIdItHoldsAtItsPositionAcrossGrowth() {
    // Iceberg's ids are random longs, negative ones included; 0 and -1 are ids like any other
    Random random = new Random(42);
    Map<Long, Integer> expected = new HashMap<>();
    SnapshotIdIndex index = new SnapshotIdIndex(0);
    expected.put(0L, 0);
    expected.put(-1L, 1);
    index.putIfAbsent(0L, 0);
    index.putIfAbsent(-1L, 1);
    for (int i = 2; i < 100_000; i++) {
      long id = i % 2 == 0 ? random.nextLong() : 1_000_000L + i; // random and consecutive
      expected.put(id, i);
      assertThat(index.putIfAbsent(id, i)).isEqualTo(-1);
    }

    assertThat(index.size()).isEqualTo(expected.size());
    expected.forEach((id, position) -> assertThat(index.position(id)).isEqualTo(position));
    assertThat(index.contains(1_000_000L)).isFalse();
    assertThat(index.position(Long.MIN_VALUE)).isEqualTo(-1);
  }

  @Test
  void aRepeatedIdKeepsItsFirstPosition() {
    SnapshotIdIndex index = new SnapshotIdIndex(4);

    assertThat(index.putIfAbsent(7L, 0)).isEqualTo(-1);
    assertThat(index.putIfAbsent(7L, 5)).isEqualTo(0);

    assertThat(index.position(7L)).isEqualTo(0);
    assertThat(index.size()).isEqualTo(1);
  }
}
