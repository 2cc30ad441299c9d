package io.icerepl.app.service.security;

import java.net.URI;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClientBuilder;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;

/**
 * Reads the API token from a Secrets Manager secret's string, with the default credentials chain.
 */
final class SecretsManagerToken {
  private SecretsManagerToken() {}

  static String read(ApiProperties properties) {
    SecretsManagerClientBuilder builder = SecretsManagerClient.builder();
    if (ApiProperties.has(properties.tokenSecretRegion())) {
      builder.region(Region.of(properties.tokenSecretRegion()));
    }
    if (ApiProperties.has(properties.tokenSecretEndpoint())) {
      builder.endpointOverride(URI.create(properties.tokenSecretEndpoint()));
    }
    try (SecretsManagerClient client = builder.build()) {
      GetSecretValueResponse secret =
          client.getSecretValue(r -> r.secretId(properties.tokenSecretId()));
      String token = secret.secretString();
      if (token == null || token.strip().length() < ApiProperties.MIN_TOKEN_LENGTH) {
        throw new IllegalStateException(
            "Cannot use secret "
                + properties.tokenSecretId()
                + " as the API token: its string must have at least "
                + ApiProperties.MIN_TOKEN_LENGTH
                + " characters");
      }
      return token.strip();
    }
  }
}
