package io.icerepl.app.service.security;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The HTTP API's access, under {@code replicator.api.*}. Requests authenticate with {@code
 * Authorization: Bearer <token>}; without a token configured only the health endpoint answers.
 *
 * @param token the bearer token (at least 16 characters); or
 * @param tokenSecretId the id or ARN of a Secrets Manager secret whose string is the token, read
 *     once at start
 * @param tokenSecretRegion the secret's region (default: the SDK's region chain)
 * @param tokenSecretEndpoint a Secrets Manager endpoint other than AWS's (LocalStack)
 * @param tokenName who holds the token, as logs name the caller (default {@code operator})
 * @param publicStatus let the status API and Prometheus answer without the token (default false:
 *     they reveal bucket names and errors)
 * @param expire bounds of on-demand expiries
 * @param verify bounds of on-demand verifications
 * @param promote bounds of promotions asked for through the API
 * @param failback bounds of fail-backs asked for through the API
 */
@Validated
@ConfigurationProperties("replicator.api")
public record ApiProperties(
    String token,
    String tokenSecretId,
    String tokenSecretRegion,
    String tokenSecretEndpoint,
    @NotBlank @DefaultValue("operator") String tokenName,
    @DefaultValue("false") boolean publicStatus,
    @Valid @DefaultValue Expire expire,
    @Valid @DefaultValue Verify verify,
    @Valid @DefaultValue Promote promote,
    @Valid @DefaultValue Failback failback) {

  /** Shorter tokens are guessable. */
  static final int MIN_TOKEN_LENGTH = 16;

  public ApiProperties {
    if (has(token) && has(tokenSecretId)) {
      throw new IllegalArgumentException(
          "Set replicator.api.token or replicator.api.token-secret-id, not both");
    }
    if (has(token) && token.length() < MIN_TOKEN_LENGTH) {
      throw new IllegalArgumentException(
          "replicator.api.token must have at least " + MIN_TOKEN_LENGTH + " characters");
    }
  }

  static boolean has(String value) {
    return value != null && !value.isBlank();
  }

  /**
   * @param maxPending on-demand expiries queued or running at once, service-wide; more are refused
   *     with 429 (default 2)
   * @param timeout how long a request waits for its expiry; after it the request answers 202 and
   *     the expiry goes on, its outcome logged (default PT30S)
   */
  public record Expire(
      @Min(1) @DefaultValue("2") int maxPending,
      @NotNull @DefaultValue("PT30S") Duration timeout) {}

  /**
   * @param maxPending on-demand verifications queued or running at once, service-wide; more are
   *     refused with 429 (default 2)
   * @param timeout how long a request waits for its verification; after it the request answers 202
   *     and the verification goes on, its outcome in the table's status (default PT30S)
   */
  public record Verify(
      @Min(1) @DefaultValue("2") int maxPending,
      @NotNull @DefaultValue("PT30S") Duration timeout) {}

  /**
   * @param maxPending promotions queued or running at once, service-wide; more are refused with 429
   *     (default 8: a lost region means promoting many tables)
   * @param timeout how long a request waits for its promotion; after it the request answers 202 and
   *     the promotion goes on, the table's state PROMOTED once it is done (default PT60S)
   */
  public record Promote(
      @Min(1) @DefaultValue("8") int maxPending,
      @NotNull @DefaultValue("PT60S") Duration timeout) {}

  /**
   * @param maxPending fail-backs queued or running at once, service-wide; more are refused with 429
   *     (default 2: each copies a table's history)
   * @param timeout how long a request waits for its fail-back; after it the request answers 202 and
   *     the fail-back goes on, its summary in the table's status once it is done (default PT60S)
   */
  public record Failback(
      @Min(1) @DefaultValue("2") int maxPending,
      @NotNull @DefaultValue("PT60S") Duration timeout) {}
}
