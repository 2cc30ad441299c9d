package io.icerepl.app.service.s3;

import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.app.service.stores.CloudStoreProperties;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/** The stores of both sides (S3, Azure, GCS, local files), S3's resilience, and its metrics. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({
  S3Properties.class,
  CloudStoreProperties.Azure.class,
  CloudStoreProperties.Gcs.class
})
class S3Configuration {

  @Bean
  S3Resilience s3Resilience(S3Properties properties, MeterRegistry meters) {
    S3Resilience resilience = new S3Resilience(S3Stores.resilience(properties));
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
      CloudStoreProperties.Azure azure,
      CloudStoreProperties.Gcs gcs,
      S3Resilience resilience,
      ObjectProvider<Clock> clock,
      ObjectProvider<ExecutionInterceptor> interceptors) {
    return S3Stores.stores(
        properties,
        azure,
        gcs,
        resilience,
        clock.getIfAvailable(Clock::systemUTC),
        interceptors.orderedStream().toList());
  }

  static S3StoreSettings settings(S3Properties properties, Clock clock) {
    return S3Stores.settings(properties, clock);
  }
}
