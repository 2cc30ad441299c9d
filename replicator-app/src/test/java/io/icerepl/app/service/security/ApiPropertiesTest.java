package io.icerepl.app.service.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApiPropertiesTest {
  private static final ApiProperties.Expire EXPIRE =
      new ApiProperties.Expire(2, Duration.ofSeconds(30));
  private static final ApiProperties.Verify VERIFY =
      new ApiProperties.Verify(2, Duration.ofSeconds(30));
  private static final ApiProperties.Promote PROMOTE =
      new ApiProperties.Promote(8, Duration.ofSeconds(60));
  private static final ApiProperties.Failback FAILBACK =
      new ApiProperties.Failback(2, Duration.ofSeconds(60));

  @Test
  void aShortTokenIsRefused() {
    assertThatThrownBy(
            () ->
                new ApiProperties(
                    "short",
                    null,
                    null,
                    null,
                    "operator",
                    false,
                    EXPIRE,
                    VERIFY,
                    PROMOTE,
                    FAILBACK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicator.api.token must have at least 16 characters");
  }

  @Test
  void aTokenAndASecretTogetherAreRefused() {
    assertThatThrownBy(
            () ->
                new ApiProperties(
                    "0123456789abcdef",
                    "secret",
                    null,
                    null,
                    "operator",
                    false,
                    EXPIRE,
                    VERIFY,
                    PROMOTE,
                    FAILBACK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Set replicator.api.token or replicator.api.token-secret-id, not both");
  }

  @Test
  void onlyTheExactTokenMatches() {
    ApiToken token = new ApiToken("operator", Optional.of("0123456789abcdef"));
    assertThat(token.matches("0123456789abcdef")).isTrue();
    assertThat(token.matches("0123456789abcdeF")).isFalse();
    assertThat(token.matches("0123456789abcde")).isFalse();
    assertThat(token.matches("")).isFalse();
    assertThat(new ApiToken("operator", Optional.empty()).matches(""))
        .as("no token configured")
        .isFalse();
  }
}
