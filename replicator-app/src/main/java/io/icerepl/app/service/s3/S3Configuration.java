package io.icerepl.app.service.s3;

import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3ResilienceSettings;
import io.icerepl.copier.s3.S3StoreSettings;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/** The S3 stores of both sides, their resilience, and its metrics. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(S3Properties.class)
class S3Configuration {

  @Bean
  S3Resilience s3Resilience(S3Properties properties, MeterRegistry meters) {
    S3ResilienceSettings settings =
        S3ResilienceSettings.defaults()
            .withRetry(
                properties.retry().maxAttempts(),
                properties.retry().initialBackoff(),
                properties.retry().maxBackoff())
            .withPermitsPerSecond(properties.permitsPerSecond())
            .withCircuitBreaker(
                properties.circuitBreaker().failureRateThreshold(),
                properties.circuitBreaker().slidingWindowSize(),
                properties.circuitBreaker().openDuration());
    S3Resilience resilience = new S3Resilience(settings);
    FunctionCounter.builder("replicator_s3_retries_total", resilience, S3Resilience::retries)
        .description("S3 requests retried after throttling, server errors or timeouts")
        .register(meters);
    return resilience;
  }

  /**
   * SDK interceptors declared as beans (tracing; tests inject faults with one) apply to both sides.
   */
  @Bean(destroyMethod = "close")
  SchemeStores s3Stores(
      S3Properties properties,
      S3Resilience resilience,
      ObjectProvider<Clock> clock,
      ObjectProvider<ExecutionInterceptor> interceptors) {
    return SchemeStores.withS3(
        new SchemeStores.S3Access(
            endpoint(properties.source()),
            endpoint(properties.target()),
            settings(properties, clock.getIfAvailable(Clock::systemUTC)),
            resilience,
            interceptors.orderedStream().toList()));
  }

  static S3StoreSettings settings(S3Properties properties, Clock clock) {
    return SchemeStores.leaseSettings(properties.lockPrefix(), properties.lockTtl(), clock);
  }

  private static S3Endpoint endpoint(S3Properties.Side side) {
    return new S3Endpoint(
        Optional.ofNullable(side.endpoint()),
        side.region(),
        Optional.ofNullable(side.accessKeyId()),
        Optional.ofNullable(side.secretAccessKey()),
        side.pathStyle());
  }
}
