package io.icerepl.copier.azure;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A blob as Iceberg and Hadoop name it: {@code abfss://<container>@<account>.dfs.core.windows.net/
 * <path>} (ADLS Gen2), {@code wasbs://<container>@<account>.blob.core.windows.net/<path>} (Blob
 * API), and their unencrypted {@code abfs://} and {@code wasb://} forms. The DFS and Blob hosts of
 * an account name the same objects (a hierarchical-namespace account serves the Blob API too), so
 * both parse to the account's Blob host: two spellings of one object give equal locations.
 *
 * @param account the storage account's name ({@code myaccount})
 * @param blobHost the account's Blob service host ({@code myaccount.blob.core.windows.net})
 * @param container the container (a file system, in ADLS Gen2 terms)
 * @param blobName the blob's name inside the container, without a leading '/'; empty for the
 *     container's root
 */
public record AzureLocation(String account, String blobHost, String container, String blobName) {

  /**
   * Parses {@code location}; {@link IllegalArgumentException} naming it when it is none of these.
   */
  public static AzureLocation parse(String location) {
    URI uri;
    try {
      uri = new URI(location);
    } catch (URISyntaxException e) {
      throw bad(location, "not a URI (" + e.getReason() + ")");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    String service =
        switch (scheme) {
          case "abfs", "abfss" -> "dfs";
          case "wasb", "wasbs" -> "blob";
          default -> throw bad(location, "the scheme must be abfss, abfs, wasbs or wasb");
        };
    String container = uri.getRawUserInfo();
    String host = uri.getHost();
    if (container == null || container.isEmpty() || host == null) {
      throw bad(
          location, "expected " + scheme + "://<container>@<account>." + service + ".<suffix>");
    }
    host = host.toLowerCase(Locale.ROOT);
    int firstDot = host.indexOf('.');
    String account = firstDot < 0 ? "" : host.substring(0, firstDot);
    String rest = firstDot < 0 ? "" : host.substring(firstDot + 1);
    String suffix;
    if (rest.startsWith("dfs.")) {
      suffix = rest.substring("dfs.".length());
    } else if (rest.startsWith("blob.")) {
      suffix = rest.substring("blob.".length());
    } else {
      throw bad(
          location,
          "the host must be <account>.dfs.<suffix> or <account>.blob.<suffix>, not " + host);
    }
    if (account.isEmpty() || suffix.isEmpty()) {
      throw bad(location, "the host names no account or no domain: " + host);
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String blobName = path.startsWith("/") ? path.substring(1) : path;
    return new AzureLocation(account, account + ".blob." + suffix, container, blobName);
  }

  /** Whether {@code location} is spelled as an Azure location (by its scheme alone). */
  public static boolean isAzure(String location) {
    String lower = location.toLowerCase(Locale.ROOT);
    return lower.startsWith("abfss://")
        || lower.startsWith("abfs://")
        || lower.startsWith("wasbs://")
        || lower.startsWith("wasb://");
  }

  /**
   * The prefix that lists what lies directly under this location taken as a folder: the blob name
   * ending in '/', or empty at the container's root.
   */
  public String folderPrefix() {
    return blobName.isEmpty() || blobName.endsWith("/") ? blobName : blobName + "/";
  }

  private static IllegalArgumentException bad(String location, String why) {
    return new IllegalArgumentException(
        "Not an Azure Blob Storage location: " + location + ": " + why);
  }
}
