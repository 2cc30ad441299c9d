package io.icerepl.copier.azure;

import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link BlobServiceClient} per storage account, built once from the store's {@link
 * AzureAccess}: a client holds its HTTP pipeline (connection pool, retries, authentication), which
 * every blob and container of the account shares. The HTTP client is the one azure-storage-blob
 * brings (Netty).
 */
final class AzureClients {
  private final AzureAccess access;
  private final Map<String, BlobServiceClient> byAccount = new ConcurrentHashMap<>();

  AzureClients(AzureAccess access) {
    this.access = access;
  }

  AzureAccess access() {
    return access;
  }

  BlobServiceClient service(AzureLocation at) {
    return byAccount.computeIfAbsent(at.blobHost(), host -> build(at));
  }

  BlobContainerClient container(AzureLocation at) {
    return service(at).getBlobContainerClient(at.container());
  }

  BlobClient blob(AzureLocation at) {
    return container(at).getBlobClient(at.blobName());
  }

  /**
   * The endpoint: the access's own when it names one, else the connection string's when there is
   * one, else the account's Blob host over HTTPS.
   */
  private BlobServiceClient build(AzureLocation at) {
    BlobServiceClientBuilder builder = new BlobServiceClientBuilder();
    AzureAccess.Credential credential = access.credential();
    if (credential instanceof AzureAccess.ConnectionString cs) {
      builder.connectionString(cs.value());
    } else if (credential instanceof AzureAccess.SasToken sas) {
      builder.sasToken(sas.value());
    } else if (credential instanceof AzureAccess.SharedKey key) {
      builder.credential(new StorageSharedKeyCredential(key.accountName(), key.accountKey()));
    } else {
      builder.credential(new DefaultAzureCredentialBuilder().build());
    }
    if (access.endpoint().isPresent()) {
      builder.endpoint(access.endpoint().get());
    } else if (!(access.credential() instanceof AzureAccess.ConnectionString)) {
      builder.endpoint("https://" + at.blobHost());
    }
    return builder.buildClient();
  }

  void clear() {
    byAccount.clear();
  }
}
