package io.icerepl.copier.azure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AzureAccessTest {
  private static final String KEY = "c2VjcmV0LWtleS1ieXRlcw==";
  private static final String SAS = "sv=2022-11-02&ss=b&sig=c2VjcmV0LXNpZw%3D%3D";
  private static final String CONNECTION =
      "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + KEY;

  @Test
  void noSecretShowsInItsText() {
    assertThat(AzureAccess.sharedKey("acct", KEY).toString())
        .contains("acct")
        .doesNotContain(KEY)
        .contains("redacted");
    assertThat(AzureAccess.sasToken(SAS).toString())
        .doesNotContain("sig")
        .doesNotContain(SAS)
        .contains("redacted");
    assertThat(AzureAccess.connectionString(CONNECTION).toString())
        .doesNotContain(KEY)
        .doesNotContain("AccountKey")
        .contains("redacted");
    assertThat(AzureAccess.sharedKey("acct", KEY).withEndpoint("http://127.0.0.1:1/acct"))
        .asString()
        .contains("http://127.0.0.1:1/acct")
        .doesNotContain(KEY);
  }

  @Test
  void theEnvironmentNamesTheCredentialInTheAzureToolsOrder() {
    assertThat(
            AzureAccess.fromEnvironment(
                    Map.of(
                        "AZURE_STORAGE_CONNECTION_STRING", CONNECTION,
                        "AZURE_STORAGE_SAS_TOKEN", SAS,
                        "AZURE_STORAGE_ACCOUNT", "acct",
                        "AZURE_STORAGE_KEY", KEY))
                .credential())
        .isEqualTo(new AzureAccess.ConnectionString(CONNECTION));
    assertThat(
            AzureAccess.fromEnvironment(
                    Map.of(
                        "AZURE_STORAGE_SAS_TOKEN",
                        SAS,
                        "AZURE_STORAGE_ACCOUNT",
                        "acct",
                        "AZURE_STORAGE_KEY",
                        KEY))
                .credential())
        .isEqualTo(new AzureAccess.SasToken(SAS));
    assertThat(
            AzureAccess.fromEnvironment(
                    Map.of("AZURE_STORAGE_ACCOUNT", "acct", "AZURE_STORAGE_KEY", KEY))
                .credential())
        .isEqualTo(new AzureAccess.SharedKey("acct", KEY));
    assertThat(AzureAccess.fromEnvironment(Map.of("AZURE_STORAGE_ACCOUNT", "acct")))
        .isEqualTo(AzureAccess.defaultCredential());
    assertThat(
            AzureAccess.fromEnvironment(
                    Map.of("AZURE_STORAGE_BLOB_ENDPOINT", "http://127.0.0.1:10000/acct"))
                .endpoint())
        .contains("http://127.0.0.1:10000/acct");
  }
}
