package io.icerepl.copier.s3;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one side's S3 lives and who it is reached as. Without keys the SDK's default credentials
 * chain applies (environment, profile, instance or task role).
 *
 * @param endpointOverride an S3-compatible endpoint instead of AWS (LocalStack, s3proxy, MinIO)
 * @param pathStyle {@code http://host/bucket/key} instead of {@code http://bucket.host/key}
 */
public record S3Endpoint(
    Optional<URI> endpointOverride,
    String region,
    Optional<String> accessKeyId,
    Optional<String> secretAccessKey,
    boolean pathStyle) {

  public S3Endpoint {
    Objects.requireNonNull(endpointOverride, "endpointOverride");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    if (accessKeyId.isPresent() != secretAccessKey.isPresent()) {
      throw new IllegalArgumentException(
          "Cannot use S3 endpoint "
              + endpointOverride.map(URI::toString).orElse(region)
              + ": an access key id needs its secret key and the other way round");
    }
  }

  /** AWS itself in {@code region}, with the default credentials chain. */
  public static S3Endpoint aws(String region) {
    return new S3Endpoint(Optional.empty(), region, Optional.empty(), Optional.empty(), false);
  }

  /**
   * Whether a copy between two stores can run inside S3: the same service reached as the same
   * principal (S3 copies across regions of AWS, so the region does not matter).
   */
  boolean sameServiceAndPrincipal(S3Endpoint other) {
    return endpointOverride.equals(other.endpointOverride) && accessKeyId.equals(other.accessKeyId);
  }

  /** Never prints the secret key. */
  @Override
  public String toString() {
    return "S3Endpoint["
        + endpointOverride.map(URI::toString).orElse("aws")
        + ", "
        + region
        + ", key "
        + accessKeyId.orElse("(default chain)")
        + (pathStyle ? ", path-style" : "")
        + "]";
  }
}
