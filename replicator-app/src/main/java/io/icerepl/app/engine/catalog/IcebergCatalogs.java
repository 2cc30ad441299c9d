package io.icerepl.app.engine.catalog;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Opens a catalog with Iceberg's own client for its kind ({@code RESTCatalog}, {@code JdbcCatalog},
 * {@code GlueCatalog}): the replicator speaks no catalog protocol itself.
 */
public final class IcebergCatalogs {
  private IcebergCatalogs() {}

  /**
   * What the replicator sets where the user did not: files are read with {@link CatalogFileIO}
   * (S3FileIO for s3://, the local file system for file:), and the AWS clients Iceberg builds use
   * the HTTP client that ships with the service.
   */
  static final Map<String, String> DEFAULTS =
      Map.of("io-impl", CatalogFileIO.class.getName(), "http-client.type", "urlconnection");

  /**
   * @throws CatalogException naming the catalog when its client cannot be set up (a wrong type, a
   *     server that does not answer the REST catalog's config call, a JDBC URI with no driver)
   */
  public static Catalog open(CatalogSpec spec) {
    CatalogSpec withDefaults = spec.withDefaults(DEFAULTS);
    Map<String, String> properties = new HashMap<>(withDefaults.properties());
    try {
      return CatalogUtil.buildIcebergCatalog(spec.name(), properties, new Configuration(false));
    } catch (RuntimeException e) {
      throw new CatalogException("Cannot open " + spec.describe() + ": " + reason(e), e);
    }
  }

  /**
   * What went wrong, for a message: Iceberg's clients wrap the telling error ("Connection refused",
   * the server's answer) in a generic one.
   */
  static String reason(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = String.valueOf(e.getMessage());
    String rootMessage = root.getMessage();
    return root == e || rootMessage == null || message.contains(rootMessage)
        ? message
        : message + ": " + rootMessage;
  }
}
