package io.icerepl.app.service.stores;

import io.icerepl.app.engine.worker.SchemeStores;
import java.net.URI;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code replicator.azure} and {@code replicator.gcs}: where the service reaches Azure Blob Storage
 * and Google Cloud Storage on each side when not at the cloud's own endpoints. Credentials are
 * never configured here: Azure's come from its {@code AZURE_STORAGE_*} variables or its default
 * credential chain (a managed identity), GCS's from application-default credentials (a workload
 * identity).
 */
public final class CloudStoreProperties {
  private CloudStoreProperties() {}

  /**
   * One side's endpoint.
   *
   * @param endpoint the Blob endpoint (Azurite: {@code http://127.0.0.1:10000/devstoreaccount1}) or
   *     the GCS host (an emulator's {@code http://host:port}), else the cloud's own
   */
  public record Side(URI endpoint) {
    Optional<URI> override() {
      return Optional.ofNullable(endpoint);
    }
  }

  /** {@code replicator.azure.source} and {@code replicator.azure.target}. */
  @ConfigurationProperties("replicator.azure")
  public record Azure(@DefaultValue Side source, @DefaultValue Side target) {
    public SchemeStores.Endpoints endpoints() {
      return new SchemeStores.Endpoints(source.override(), target.override());
    }
  }

  /** {@code replicator.gcs.source} and {@code replicator.gcs.target}. */
  @ConfigurationProperties("replicator.gcs")
  public record Gcs(@DefaultValue Side source, @DefaultValue Side target) {
    public SchemeStores.Endpoints endpoints() {
      return new SchemeStores.Endpoints(source.override(), target.override());
    }
  }
}
