package io.icerepl.app.service.s3;

import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.s3.S3StoreSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code replicator.s3}: how the service reaches S3 on each side. Source and target usually differ
 * in region and often in credentials; absent keys use the default credentials chain (the task role
 * on ECS).
 *
 * @param source the source side
 * @param target the target side (all targets of all rules)
 * @param lockPrefix where table leases live in each target bucket, outside every table (the command
 *     line's default too, so that both exclude each other)
 * @param lockTtl how long a lease holds without its owner renewing it (a killed run frees the table
 *     then); a running run renews it every third of this
 * @param retry retries of throttled and failed requests
 * @param permitsPerSecond requests per second per target prefix (0: no limit)
 * @param circuitBreaker when a bucket's calls are cut off after repeated failures
 */
@Validated
@ConfigurationProperties("replicator.s3")
public record S3Properties(
    @Valid @NotNull @DefaultValue Side source,
    @Valid @NotNull @DefaultValue Side target,
    @NotBlank @DefaultValue(ReplicaLayout.DEFAULT_LOCK_PREFIX) String lockPrefix,
    @NotNull @DefaultValue(S3StoreSettings.DEFAULT_LOCK_TTL) Duration lockTtl,
    @Valid @NotNull @DefaultValue Retry retry,
    @Min(0) @DefaultValue("0") int permitsPerSecond,
    @Valid @NotNull @DefaultValue CircuitBreaker circuitBreaker) {

  /**
   * @param failureRateThreshold percent of failed calls (throttling, 5xx, timeouts) that opens it
   * @param slidingWindowSize calls the rate is computed over
   * @param openDuration how long calls are refused before a few are let through again
   */
  public record CircuitBreaker(
      @DefaultValue("50") float failureRateThreshold,
      @Min(1) @DefaultValue("100") int slidingWindowSize,
      @NotNull @DefaultValue("PT30S") Duration openDuration) {}

  /**
   * One side's S3.
   *
   * @param region the region (default us-east-1)
   * @param endpoint an endpoint override (LocalStack, the embedded S3, a gateway), else AWS
   * @param accessKeyId static credentials, else the default chain
   * @param secretAccessKey goes with accessKeyId
   * @param pathStyle path-style addressing (needed by most S3-compatible servers)
   */
  public record Side(
      @NotBlank @DefaultValue("us-east-1") String region,
      URI endpoint,
      String accessKeyId,
      String secretAccessKey,
      @DefaultValue("false") boolean pathStyle) {}

  /**
   * @param maxAttempts attempts per request, the first included
   * @param initialBackoff wait before the first retry, doubled (with jitter) on each
   * @param maxBackoff the longest wait
   */
  public record Retry(
      @Min(1) @DefaultValue("8") int maxAttempts,
      @NotNull @DefaultValue("PT0.2S") Duration initialBackoff,
      @NotNull @DefaultValue("PT20S") Duration maxBackoff) {}
}
