package io.icerepl.copier.s3;

import java.time.Duration;

/**
 * Retry, rate limit and circuit breaker settings for S3 calls.
 *
 * @param maxAttempts attempts per call, the first included
 * @param initialBackoff wait before the first retry; later waits grow by {@code multiplier}, with
 *     jitter so that many workers throttled together do not retry together
 * @param maxBackoff the longest wait between attempts
 * @param permitsPerSecond requests per second per prefix (bucket and first key segment, the unit S3
 *     throttles by); 0 for no limit
 * @param failureRateThreshold percentage of failed calls in the window that opens a bucket's
 *     breaker
 * @param slidingWindowSize calls the failure rate is computed over
 * @param openDuration how long an open breaker refuses calls before letting a few through
 */
public record S3ResilienceSettings(
    int maxAttempts,
    Duration initialBackoff,
    double multiplier,
    Duration maxBackoff,
    int permitsPerSecond,
    float failureRateThreshold,
    int slidingWindowSize,
    Duration openDuration) {

  public S3ResilienceSettings {
    if (maxAttempts < 1 || multiplier < 1 || permitsPerSecond < 0 || slidingWindowSize < 1) {
      throw new IllegalArgumentException(
          "Cannot use S3 resilience settings: attempts "
              + maxAttempts
              + ", multiplier "
              + multiplier
              + ", permits "
              + permitsPerSecond
              + " and window "
              + slidingWindowSize
              + " must be at least 1, 1, 0 and 1");
    }
    if (failureRateThreshold <= 0 || failureRateThreshold > 100) {
      throw new IllegalArgumentException(
          "Cannot use S3 failure rate threshold "
              + failureRateThreshold
              + ": not a percentage above 0");
    }
  }

  /**
   * Eight attempts from 200 ms doubling up to 20 s ride out a throttling burst of about a minute;
   * S3 asks clients that see SlowDown to back off exponentially.
   */
  public static S3ResilienceSettings defaults() {
    return new S3ResilienceSettings(
        8,
        Duration.ofMillis(200),
        2.0,
        Duration.ofSeconds(20),
        0,
        50f,
        100,
        Duration.ofSeconds(30));
  }

  public S3ResilienceSettings withRetry(int attempts, Duration initial, Duration max) {
    return new S3ResilienceSettings(
        attempts,
        initial,
        multiplier,
        max,
        permitsPerSecond,
        failureRateThreshold,
        slidingWindowSize,
        openDuration);
  }

  public S3ResilienceSettings withPermitsPerSecond(int permits) {
    return new S3ResilienceSettings(
        maxAttempts,
        initialBackoff,
        multiplier,
        maxBackoff,
        permits,
        failureRateThreshold,
        slidingWindowSize,
        openDuration);
  }

  public S3ResilienceSettings withCircuitBreaker(float threshold, int window, Duration open) {
    return new S3ResilienceSettings(
        maxAttempts,
        initialBackoff,
        multiplier,
        maxBackoff,
        permitsPerSecond,
        threshold,
        window,
        open);
  }
}
