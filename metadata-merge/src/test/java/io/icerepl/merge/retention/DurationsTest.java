package io.icerepl.merge.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {
  @ParameterizedTest
  @CsvSource({
    "90d, 7776000000",
    "1d12h, 129600000",
    "500ms, 500",
    "30m, 1800000",
    "45s, 45000",
    "2h30m, 9000000",
    "1m30s, 90000",
    "1h1ms, 3600001",
    "1d12h30m, 131400000",
    "0s, 0",
    "2w, 1209600000",
    "1y, 31536000000",
    "007s, 7000",
  })
  void parsesConcatenatedNumberUnitPairs(String text, long millis) {
    assertThat(Durations.parseMillis(text)).isEqualTo(millis);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "''| it is empty",
        "d| expected a number at position 0, found 'd'",
        "90| missing unit after 90 (units: y, w, d, h, m, s, ms)",
        "-1d| durations cannot be negative",
        "1x| unknown unit 'x' (units: y, w, d, h, m, s, ms)",
        "1D| unexpected 'D' at position 1",
        "1.5h| unexpected '.' at position 1",
        "'1d '| expected a number at position 2, found ' '",
        "' 1d'| expected a number at position 0, found ' '",
        "1d-2h| durations cannot be negative",
        "99999999999999999999d| too large",
        "300000000y| too large",
        "3days| unknown unit 'days' (units: y, w, d, h, m, s, ms)",
      })
  void refusesAnythingElseNamingTheTextAndWhy(String text, String why) {
    assertThatThrownBy(() -> Durations.parseMillis(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot parse duration '" + text + "': " + why);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1d", "12h"})
  void unitsCombineAdditively(String part) {
    assertThat(Durations.parseMillis(part + part)).isEqualTo(2 * Durations.parseMillis(part));
  }
}
