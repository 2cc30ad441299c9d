package io.icerepl.copier.s3;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The single retry layer around every S3 call (the clients' own retries are off): retries with
 * jittered exponential backoff what a later attempt can fix — throttling, server errors, lost
 * connections — and never an answer about the request itself (404, 403, 412). A rate limiter per
 * prefix keeps the replicator under S3's per-prefix request rates, and a circuit breaker per bucket
 * stops hammering a bucket that keeps failing.
 *
 * <p>One instance is shared by the stores of a process, so the registries hold every bucket's state
 * for metrics.
 */
public final class S3Resilience {
  private static final double JITTER = 0.5;

  /** A rate-limited call waits for its turn rather than failing. */
  private static final Duration RATE_LIMIT_WAIT = Duration.ofMinutes(5);

  private final boolean rateLimited;
  private final RetryRegistry retryRegistry;
  private final RateLimiterRegistry rateLimiterRegistry;
  private final CircuitBreakerRegistry circuitBreakerRegistry;
  private final LongAdder retries = new LongAdder();

  public S3Resilience(S3ResilienceSettings settings) {
    this.rateLimited = settings.permitsPerSecond() > 0;
    this.retryRegistry =
        RetryRegistry.of(
            RetryConfig.custom()
                .maxAttempts(settings.maxAttempts())
                .intervalFunction(
                    IntervalFunction.ofExponentialRandomBackoff(
                        settings.initialBackoff(),
                        settings.multiplier(),
                        JITTER,
                        settings.maxBackoff()))
                .retryOnException(S3Resilience::isRetryable)
                .build());
    retryRegistry
        .getEventPublisher()
        .onEntryAdded(
            added ->
                added.getAddedEntry().getEventPublisher().onRetry(event -> retries.increment()));
    this.rateLimiterRegistry =
        RateLimiterRegistry.of(
            RateLimiterConfig.custom()
                .limitForPeriod(Math.max(1, settings.permitsPerSecond()))
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(RATE_LIMIT_WAIT)
                .build());
    this.circuitBreakerRegistry =
        CircuitBreakerRegistry.of(
            CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(settings.slidingWindowSize())
                .minimumNumberOfCalls(settings.slidingWindowSize())
                .failureRateThreshold(settings.failureRateThreshold())
                .waitDurationInOpenState(settings.openDuration())
                // A missing object or a lost conditional write says nothing about the bucket's
                // health.
                .recordException(S3Resilience::isRetryable)
                .build());
  }

  public static S3Resilience defaults() {
    return new S3Resilience(S3ResilienceSettings.defaults());
  }

  /**
   * Runs one S3 call on {@code bucket}/{@code key} under the bucket's breaker, the prefix's rate
   * limiter and the retry policy. SDK exceptions come out unchanged once attempts are exhausted or
   * when they are not worth retrying; a refusal by the breaker comes out as an IOException.
   */
  <T> T call(String bucket, String key, Supplier<T> call) throws IOException {
    CircuitBreaker breaker = circuitBreakerRegistry.circuitBreaker(bucket);
    Supplier<T> attempt = CircuitBreaker.decorateSupplier(breaker, call);
    if (rateLimited) {
      attempt =
          RateLimiter.decorateSupplier(
              rateLimiterRegistry.rateLimiter(prefixOf(bucket, key)), attempt);
    }
    try {
      return retryRegistry.retry(bucket).executeSupplier(attempt);
    } catch (CallNotPermittedException e) {
      throw new IOException(
          "Cannot call S3 bucket "
              + bucket
              + ": too many recent failures, "
              + "its circuit breaker is open",
          e);
    } catch (RequestNotPermitted e) {
      throw new IOException(
          "Cannot call S3 prefix "
              + prefixOf(bucket, key)
              + ": no request "
              + "permit within "
              + RATE_LIMIT_WAIT,
          e);
    }
  }

  /** Whether a later attempt of the same request may succeed. */
  public static boolean isRetryable(Throwable error) {
    if (error instanceof S3Exception s3) {
      int status = s3.statusCode();
      // 400 RequestTimeout: S3 closed an upload that sent nothing for a while; resending works.
      return status == 429 || status >= 500 || "RequestTimeout".equals(errorCode(s3));
    }
    if (error instanceof ApiCallTimeoutException
        || error instanceof ApiCallAttemptTimeoutException) {
      return true;
    }
    return error instanceof SdkClientException
        && error.getCause() instanceof IOException
        && !nothingListens(error);
  }

  /**
   * Whether the endpoint refused the connection or its host has no address: a setting to correct,
   * not a blip to wait out, so the call fails in seconds instead of after every retry's back-off.
   */
  static boolean nothingListens(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof java.net.ConnectException
          || cause instanceof java.net.UnknownHostException) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  private static String errorCode(S3Exception e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  /** S3 scales request rates per prefix; the first key segment is the usual table folder. */
  static String prefixOf(String bucket, String key) {
    int slash = key.indexOf('/');
    return bucket + "/" + (slash < 0 ? "" : key.substring(0, slash));
  }

  /** Retries performed so far, over all buckets. */
  public long retries() {
    return retries.sum();
  }

  public RetryRegistry retryRegistry() {
    return retryRegistry;
  }

  public RateLimiterRegistry rateLimiterRegistry() {
    return rateLimiterRegistry;
  }

  public CircuitBreakerRegistry circuitBreakerRegistry() {
    return circuitBreakerRegistry;
  }
}
