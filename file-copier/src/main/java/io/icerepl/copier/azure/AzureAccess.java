package io.icerepl.copier.azure;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How the store reaches a storage account: where (the account's own Blob host, or an endpoint that
 * replaces it, such as Azurite's {@code http://127.0.0.1:10000/devstoreaccount1}) and as whom. Its
 * {@link #toString()} never shows a key, a SAS token or a connection string, so an access can be
 * logged or put in a message.
 *
 * @param endpoint the account's Blob endpoint instead of {@code https://<account host>}, if any
 * @param credential as whom
 */
public record AzureAccess(Optional<String> endpoint, Credential credential) {
  public AzureAccess {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(credential, "credential");
  }

  /** As whom requests are made. */
  public sealed interface Credential {}

  /** A connection string (account name and key, or a SAS, and the endpoints). */
  public record ConnectionString(String value) implements Credential {
    public ConnectionString {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
      return "ConnectionString[redacted]";
    }
  }

  /** A shared access signature, the query string of a SAS URL (with or without its '?'). */
  public record SasToken(String value) implements Credential {
    public SasToken {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
      return "SasToken[redacted]";
    }
  }

  /** The account's name and one of its access keys. */
  public record SharedKey(String accountName, String accountKey) implements Credential {
    public SharedKey {
      Objects.requireNonNull(accountName, "accountName");
      Objects.requireNonNull(accountKey, "accountKey");
    }

    @Override
    public String toString() {
      return "SharedKey[accountName=" + accountName + ", accountKey=redacted]";
    }
  }

  /**
   * The identity the environment provides (azure-identity's {@code DefaultAzureCredential}: the
   * environment's service principal, a workload or managed identity, the Azure CLI's login).
   */
  public record DefaultCredential() implements Credential {}

  public static AzureAccess connectionString(String connectionString) {
    return new AzureAccess(Optional.empty(), new ConnectionString(connectionString));
  }

  public static AzureAccess sasToken(String sasToken) {
    return new AzureAccess(Optional.empty(), new SasToken(sasToken));
  }

  public static AzureAccess sharedKey(String accountName, String accountKey) {
    return new AzureAccess(Optional.empty(), new SharedKey(accountName, accountKey));
  }

  public static AzureAccess defaultCredential() {
    return new AzureAccess(Optional.empty(), new DefaultCredential());
  }

  /** This access at {@code blobEndpoint} instead of the account's own host. */
  public AzureAccess withEndpoint(String blobEndpoint) {
    return new AzureAccess(Optional.of(blobEndpoint), credential);
  }

  /** {@link #fromEnvironment(Map)} of this process's environment. */
  public static AzureAccess fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /**
   * The access the environment names, as the Azure tools read it: {@code
   * AZURE_STORAGE_CONNECTION_STRING}, else {@code AZURE_STORAGE_SAS_TOKEN}, else {@code
   * AZURE_STORAGE_ACCOUNT} with {@code AZURE_STORAGE_KEY}, else the default credential. {@code
   * AZURE_STORAGE_BLOB_ENDPOINT}, when set, replaces the account's host.
   */
  public static AzureAccess fromEnvironment(Map<String, String> env) {
    AzureAccess access;
    if (present(env, "AZURE_STORAGE_CONNECTION_STRING")) {
      access = connectionString(env.get("AZURE_STORAGE_CONNECTION_STRING"));
    } else if (present(env, "AZURE_STORAGE_SAS_TOKEN")) {
      access = sasToken(env.get("AZURE_STORAGE_SAS_TOKEN"));
    } else if (present(env, "AZURE_STORAGE_ACCOUNT") && present(env, "AZURE_STORAGE_KEY")) {
      access = sharedKey(env.get("AZURE_STORAGE_ACCOUNT"), env.get("AZURE_STORAGE_KEY"));
    } else {
      access = defaultCredential();
    }
    return present(env, "AZURE_STORAGE_BLOB_ENDPOINT")
        ? access.withEndpoint(env.get("AZURE_STORAGE_BLOB_ENDPOINT"))
        : access;
  }

  private static boolean present(Map<String, String> env, String name) {
    String value = env.get(name);
    return value != null && !value.isBlank();
  }

  @Override
  public String toString() {
    return "AzureAccess[endpoint=" + endpoint.orElse("(account host)") + ", " + credential + "]";
  }
}
