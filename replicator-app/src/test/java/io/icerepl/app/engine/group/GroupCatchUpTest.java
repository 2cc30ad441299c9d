package io.icerepl.app.engine.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GroupCatchUpTest {
  @Test
  void theFreshCutCoversTheAskedMomentPastItsSecondTheWindowAndTheSkew() {
    // a cut tag's moment is the cut less the skew, rounded down to its second, then moved back out
    // of the transaction window: being current from here puts the tag at or after the asked moment
    assertThat(GroupCatchUp.coveringFrom(10_250, Duration.ofSeconds(1), Duration.ZERO))
        .isEqualTo(12_000);
    assertThat(GroupCatchUp.coveringFrom(10_000, Duration.ofSeconds(1), Duration.ZERO))
        .isEqualTo(11_000);
    assertThat(GroupCatchUp.coveringFrom(10_250, Duration.ZERO, Duration.ofMillis(800)))
        .isEqualTo(12_000);
    assertThat(GroupCatchUp.coveringFrom(10_250, Duration.ofMillis(300), Duration.ofMillis(700)))
        .isEqualTo(11_300);
  }
}
