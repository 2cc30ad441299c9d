package io.icerepl.app.service.s3;

import io.icerepl.app.engine.worker.SchemeStores;
import io.icerepl.app.logging.Redaction;
import io.icerepl.app.service.stores.CloudStoreProperties;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3ResilienceSettings;
import io.icerepl.copier.s3.S3StoreSettings;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Maps {@code replicator.s3} (and the endpoints of {@code replicator.azure} and {@code
 * replicator.gcs}) onto the stores' settings: the one mapping of the service and of {@code
 * backfill}, which reads the same configuration without starting the service.
 */
public final class S3Stores {
  private S3Stores() {}

  public static S3ResilienceSettings resilience(S3Properties properties) {
    return S3ResilienceSettings.defaults()
        .withRetry(
            properties.retry().maxAttempts(),
            properties.retry().initialBackoff(),
            properties.retry().maxBackoff())
        .withPermitsPerSecond(properties.permitsPerSecond())
        .withCircuitBreaker(
            properties.circuitBreaker().failureRateThreshold(),
            properties.circuitBreaker().slidingWindowSize(),
            properties.circuitBreaker().openDuration());
  }

  /**
   * Both sides' stores, their leases named and timed as configured: S3 as {@code replicator.s3}
   * says, Azure and GCS at the endpoints {@code replicator.azure} and {@code replicator.gcs} name.
   *
   * @param interceptors SDK interceptors on both sides (tracing; tests inject faults with one)
   */
  public static SchemeStores stores(
      S3Properties properties,
      CloudStoreProperties.Azure azure,
      CloudStoreProperties.Gcs gcs,
      S3Resilience resilience,
      Clock clock,
      List<ExecutionInterceptor> interceptors) {
    return SchemeStores.of(
        new SchemeStores.S3Access(
            endpoint(properties.source()),
            endpoint(properties.target()),
            settings(properties, clock),
            resilience,
            interceptors),
        azure.endpoints(),
        gcs.endpoints());
  }

  private static S3Endpoint endpoint(S3Properties.Side side) {
    Redaction.secret(side.secretAccessKey());
    return new S3Endpoint(
        Optional.ofNullable(side.endpoint()),
        side.region(),
        Optional.ofNullable(side.accessKeyId()),
        Optional.ofNullable(side.secretAccessKey()),
        side.pathStyle());
  }

  static S3StoreSettings settings(S3Properties properties, Clock clock) {
    return SchemeStores.leaseSettings(properties.lockPrefix(), properties.lockTtl(), clock);
  }
}
