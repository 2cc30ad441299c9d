package io.icerepl.copier.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.auth.Credentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.StorageOptions;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GcsAccessTest {
  @Test
  void anEmulatorIsTheHostOfEveryRequestAndTakesNoCredentials() {
    StorageOptions options = GcsAccess.emulator("http://localhost:4443").options();

    assertThat(options.getHost()).isEqualTo("http://localhost:4443");
    assertThat(options.getCredentials()).isSameAs(NoCredentials.getInstance());
  }

  @Test
  void givenCredentialsAndProjectAreUsed() {
    Credentials secret = new SecretCredentials();

    StorageOptions options =
        GcsAccess.emulator("http://localhost:4443")
            .withCredentials(secret)
            .withProjectId("replicas")
            .options();

    assertThat(options.getCredentials()).isSameAs(secret);
    assertThat(options.getProjectId()).isEqualTo("replicas");
  }

  @Test
  void gcsItselfIsTheDefault() {
    GcsAccess access = GcsAccess.applicationDefault();

    assertThat(access.endpoint()).isEmpty();
    assertThat(access.credentials()).isEmpty();
    assertThat(access)
        .hasToString(
            "GcsAccess[endpoint=GCS, projectId=from the environment, credentials=application default]");
  }

  @Test
  void itsTextNamesNoSecret() {
    GcsAccess access =
        GcsAccess.emulator("http://localhost:4443").withCredentials(new SecretCredentials());

    assertThat(access.toString())
        .contains("http://localhost:4443")
        .contains("SecretCredentials")
        .doesNotContain("s3cr3t");
  }

  @Test
  void anEndpointThatIsNoHttpUrlIsRefusedByName() {
    assertThatThrownBy(() -> GcsAccess.emulator("localhost:4443"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("localhost:4443");
    assertThatThrownBy(() -> GcsAccess.emulator("ftp://host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ftp://host");
  }

  /** Credentials whose own text holds the secret, as a careless toString would print it. */
  private static final class SecretCredentials extends Credentials {
    @Override
    public String getAuthenticationType() {
      return "test";
    }

    @Override
    public Map<String, List<String>> getRequestMetadata(URI uri) {
      return Map.of("Authorization", List.of("Bearer s3cr3t"));
    }

    @Override
    public boolean hasRequestMetadata() {
      return true;
    }

    @Override
    public boolean hasRequestMetadataOnly() {
      return true;
    }

    @Override
    public void refresh() {}

    @Override
    public String toString() {
      return "SecretCredentials[token=s3cr3t]";
    }
  }
}
