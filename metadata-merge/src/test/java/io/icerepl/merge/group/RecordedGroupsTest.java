package io.icerepl.merge.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.state.GroupMembership;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordedGroupsTest {
  private static final GroupMembership SALES =
      new GroupMembership(
          "sales",
          "sales",
          List.of("s3://dr/sales/orders", "s3://dr/sales/order_items"),
          Duration.ofSeconds(1),
          Duration.ZERO);

  @Test
  void aSubsetOfARecordedGroupLeavesItsOtherMembersOut() {
    assertThat(RecordedGroups.leftOut(List.of("s3://dr/sales/orders"), List.of(SALES)))
        .isEqualTo(Map.of("sales", List.of("s3://dr/sales/order_items")));
  }

  @Test
  void theWholeGroupHoweverSpelledLeavesNothingOut() {
    assertThat(
            RecordedGroups.leftOut(
                List.of("s3://dr/sales/order_items/", "s3://dr/sales/orders", "s3://dr/x/y"),
                List.of(SALES, SALES)))
        .isEmpty();
  }

  @Test
  void replicasAgreeingOnOneGroupNameIt() {
    GroupMembership other =
        new GroupMembership("ops", "ops", List.of("s3://dr/ops/t"), Duration.ZERO, Duration.ZERO);
    assertThat(RecordedGroups.common(List.of(SALES, SALES))).contains(SALES);
    assertThat(RecordedGroups.common(List.of(SALES, other))).isEmpty();
    assertThat(RecordedGroups.common(List.of())).isEmpty();
  }
}
