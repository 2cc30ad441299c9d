package io.icerepl.copier.gcs;

import com.google.auth.Credentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach GCS: the service itself with application-default credentials unless others are
 * given, or an emulator at {@code endpoint} ({@code http://host:port}), which takes no credentials
 * unless given some. Kept apart from the store so that a store under test takes any {@link
 * Storage}, and so that nothing that prints an access (a log line, an error) prints a secret.
 *
 * @param endpoint the host requests go to instead of GCS's own, an emulator's
 * @param projectId the project billed and named in requests, else the one the environment names
 * @param credentials the credentials to sign with, else application-default ones (none for an
 *     emulator)
 */
public record GcsAccess(
    Optional<String> endpoint, Optional<String> projectId, Optional<Credentials> credentials) {

  public GcsAccess {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(credentials, "credentials");
    endpoint.ifPresent(GcsAccess::checkEndpoint);
  }

  /** GCS itself, with application-default credentials. */
  public static GcsAccess applicationDefault() {
    return new GcsAccess(Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** An emulator at {@code endpoint} ({@code http://host:port}), without credentials. */
  public static GcsAccess emulator(String endpoint) {
    return new GcsAccess(Optional.of(endpoint), Optional.empty(), Optional.empty());
  }

  public GcsAccess withProjectId(String projectId) {
    return new GcsAccess(endpoint, Optional.of(projectId), credentials);
  }

  public GcsAccess withCredentials(Credentials credentials) {
    return new GcsAccess(endpoint, projectId, Optional.of(credentials));
  }

  /** The client options this access stands for. */
  public StorageOptions options() {
    StorageOptions.Builder builder = StorageOptions.newBuilder();
    endpoint.ifPresent(builder::setHost);
    projectId.ifPresent(builder::setProjectId);
    if (credentials.isPresent()) {
      builder.setCredentials(credentials.get());
    } else if (endpoint.isPresent()) {
      builder.setCredentials(NoCredentials.getInstance());
    }
    // else: the client library finds the application-default credentials itself
    return builder.build();
  }

  /** A new client; the caller closes it. */
  public Storage open() {
    return options().getService();
  }

  /** Where and as whom, never the credentials themselves. */
  @Override
  public String toString() {
    return "GcsAccess[endpoint="
        + endpoint.orElse("GCS")
        + ", projectId="
        + projectId.orElse("from the environment")
        + ", credentials="
        + credentialsKind()
        + "]";
  }

  private String credentialsKind() {
    if (credentials.isPresent()) {
      return "given (" + credentials.get().getClass().getSimpleName() + ")";
    }
    return endpoint.isPresent() ? "none" : "application default";
  }

  private static void checkEndpoint(String endpoint) {
    URI uri;
    try {
      uri = URI.create(endpoint);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Cannot use " + endpoint + " as a GCS endpoint: not http(s)://host[:port]", e);
    }
    if (uri.getHost() == null
        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new IllegalArgumentException(
          "Cannot use " + endpoint + " as a GCS endpoint: not http(s)://host[:port]");
    }
  }
}
