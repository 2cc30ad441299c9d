package io.icerepl.merge.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetentionPoliciesTest {
  @Test
  void noPropertiesMeanIcebergDefaults() {
    assertThat(RetentionPolicies.fromProperties(Map.of("write.format.default", "parquet")))
        .isEqualTo(RetentionPolicy.ICEBERG_DEFAULTS);
  }

  @Test
  void eachPropertyOverridesItsOwnDefault() {
    assertThat(RetentionPolicies.fromProperties(Map.of(RetentionPolicy.MIN_SNAPSHOTS_TO_KEEP, "7")))
        .isEqualTo(
            new RetentionPolicy(
                7, RetentionPolicy.ICEBERG_DEFAULTS.maxSnapshotAgeMs(), Long.MAX_VALUE));
    assertThat(
            RetentionPolicies.fromProperties(
                Map.of(
                    RetentionPolicy.MIN_SNAPSHOTS_TO_KEEP, "3",
                    RetentionPolicy.MAX_SNAPSHOT_AGE_MS, "7776000000",
                    RetentionPolicy.MAX_REF_AGE_MS, "2592000000")))
        .isEqualTo(new RetentionPolicy(3, 7_776_000_000L, 2_592_000_000L));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "history.expire.min-snapshots-to-keep| many| not a whole number",
        "history.expire.min-snapshots-to-keep| 0| must be at least 1",
        "history.expire.min-snapshots-to-keep| 3000000000| must be at most 2147483647",
        "history.expire.max-snapshot-age-ms| 5d| not a whole number",
        "history.expire.max-snapshot-age-ms| -1| must be at least 0",
        "history.expire.max-ref-age-ms| ' 100'| not a whole number",
        "history.expire.max-ref-age-ms| ''| not a whole number",
      })
  void malformedValueIsRefusedNamingTheProperty(String property, String value, String why) {
    assertThatThrownBy(() -> RetentionPolicies.fromProperties(Map.of(property, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read table property " + property + "='" + value + "': " + why);
  }
}
